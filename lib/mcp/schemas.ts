import { z } from "zod";
import { limits, type Tier } from "../plans";
import { NAME_PATTERN } from "../patterns";
import { nameSchema, ttlSchema } from "../schemas";

// The MCP tools' argument schemas. They carry the rules an agent needs before it calls — files
// per call by plan, path and base64 rules as patterns, the size of a whole call, ttl bounds —
// with every number read from lib/plans.ts. Validation stays with the lib/ services (their
// messages are more precise than a pattern mismatch); the published schema states the rules.

const MB = 1024 * 1024;
const DAY = 86_400;
const tiers = Object.keys(limits) as Tier[];

/** The largest HTML/JSON body any plan accepts: the cap on what one tool call may carry. */
export const BODY_BYTES = Math.max(...tiers.map((t) => limits[t].bodyBytes));
/** What a tools/call may weigh: the largest body plus room for the JSON-RPC envelope. */
export const MCP_BODY_CAP = BODY_BYTES + 256 * 1024;

const mb = (n: number) => `${Math.round((n / MB) * 10) / 10} MB`;
const days = (s: number) => (s % DAY === 0 ? `${s / DAY} days` : `${s} s`);

/** "anonymous and free: 100; pro and team: 900" — a per-plan number, grouped by value. */
function perPlan(value: (t: Tier) => string): string {
  const groups = new Map<string, Tier[]>();
  for (const t of tiers) groups.set(value(t), [...(groups.get(value(t)) ?? []), t]);
  return [...groups].map(([v, ts]) => `${ts.join(" and ")}: ${v}`).join("; ");
}

const MAX_FILES = Math.max(...tiers.map((t) => limits[t].filesPerRequest));
const TTL_MIN = Math.min(...tiers.map((t) => limits[t].ttlMinSeconds));

/**
 * Relative POSIX paths: no leading slash or drive letter, no backslash or control character,
 * no empty, "." or ".." segment (so no trailing slash), at most 1024 characters.
 */
export const PATH_PATTERN = String.raw`^(?![A-Za-z]:)(?!.*(?:^|/)\.{1,2}(?:/|$))(?!.*//)[^/\\\u0000-\u001F\u007F](?:[^\\\u0000-\u001F\u007F]{0,1022}[^/\\\u0000-\u001F\u007F])?$`;
/** Standard base64 (RFC 4648 §4): the + and / alphabet, = padding, no line breaks or data: prefix. */
export const BASE64_PATTERN = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$";

const SIZE_RULE =
  `A whole tool call may carry at most ${mb(BODY_BYTES)} (no plan raises this); base64 makes binary files a third larger, ` +
  `so about ${mb((BODY_BYTES * 3) / 4)} of binary content fits in one call.`;

export const TTL_RULE = `ttl is the lifetime in whole seconds, at least ${TTL_MIN}; maximum per plan — ${perPlan((t) => (limits[t].ttlMaxSeconds === null ? "no maximum" : `${limits[t].ttlMaxSeconds} (${days(limits[t].ttlMaxSeconds)})`))}. Default — ${perPlan((t) => (limits[t].ttlDefaultSeconds === null ? "never expires" : days(limits[t].ttlDefaultSeconds)))}.`;

export const FILES_RULE = `Files per call — ${perPlan((t) => String(limits[t].filesPerRequest))}.`;

const ttl = ttlSchema.optional().meta({ description: TTL_RULE, minimum: TTL_MIN });

const fileValue = z.union([
  z.string().describe("Text content, stored as UTF-8."),
  z.strictObject({
    encoding: z.literal("base64"),
    content: z.string().meta({ description: "Standard base64 of the file's bytes: A–Z a–z 0–9 + /, = padding, no line breaks, no data: prefix.", pattern: BASE64_PATTERN }),
  }),
]);

const files = z
  .record(z.string(), fileValue)
  .meta({
    description: `Map from relative path (index.html, assets/app.js) to content. ${FILES_RULE} Paths: forward slashes, no leading slash, no "." or ".." segments, up to 1024 characters. ${SIZE_RULE}`,
    propertyNames: { pattern: PATH_PATTERN, minLength: 1, maxLength: 1024 },
    minProperties: 1,
    maxProperties: MAX_FILES,
  });

const slug = z.string().min(1).max(100).describe("The slug of the drop: the first label of its URL (list_drops shows them).");

export const deployHtmlArgs = z
  .strictObject({
    html: z.string().min(1).describe(`The page to publish, served as index.html: a complete HTML document (inline CSS and JS are fine). ${SIZE_RULE}`),
    ttl,
  })
  .meta({ examples: [{ html: "<!doctype html><title>Hello</title><h1>Hello, world</h1>" }, { html: "<h1>Launch party</h1>", ttl: 3600 }] });

export const deployFilesArgs = z
  .strictObject({ files, ttl })
  .meta({ examples: [{ files: { "index.html": '<link rel="stylesheet" href="style.css"><h1>Hi</h1>', "style.css": "h1 { color: teal }", "img/dot.png": { encoding: "base64", content: "iVBORw0KGgo=" } } }] });

export const deployNamedArgs = z
  .strictObject({
    name: nameSchema.meta({ description: `The alias (paid plans): ${NAME_PATTERN.source}. The first deploy of a name creates the drop; the next ones replace all its files and keep its URL.` }),
    files,
    ttl,
  })
  .meta({ examples: [{ name: "blog", files: { "index.html": "<h1>My blog</h1>" } }] });

export const appendFilesArgs = z
  .strictObject({
    slug,
    files: files.meta({ description: `New files to add to the drop (paid plans); paths it already has are refused. ${FILES_RULE} ${SIZE_RULE}` }),
  })
  .meta({ examples: [{ slug: "k3j9x2ab", files: { "about.html": "<h1>About</h1>" } }] });

export const listDropsArgs = z
  .strictObject({
    limit: z.int().min(1).max(500).optional().describe("Page size, 1 to 500 (default 100)."),
    offset: z.int().min(0).max(1_000_000).optional().describe("Drops to skip (default 0)."),
  })
  .meta({ examples: [{}, { limit: 20, offset: 40 }] });

export const getDropArgs = z.strictObject({ slug }).meta({ examples: [{ slug: "k3j9x2ab" }] });
export const deleteDropArgs = z.strictObject({ slug }).meta({ examples: [{ slug: "k3j9x2ab" }] });
export const getLimitsArgs = z.strictObject({}).meta({ examples: [{}] });

