import { z } from "zod";
import {
  DEPLOY_GRANT_SECONDS,
  IDEMPOTENCY_KEY_MAX_CHARS,
  IDEMPOTENCY_SECONDS,
  limits,
  TTL_CEILING_SECONDS,
  UPLOAD_GRANT_SECONDS,
  type Tier,
} from "../plans";
import { capOf } from "../http-routes";
import { NAME_PATTERN, SHA256_HEX_PATTERN } from "../patterns";
import {
  deviceAuthorizationSchema,
  deviceAuthorizeBodySchema,
  deviceTokenSchema,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  MAX_OFFSET,
  nameSchema,
  ttlSchema,
  webhookBodySchema,
} from "../schemas";

// The MCP tools' argument schemas. They carry the rules an agent needs before it calls — files
// per call by plan, path and base64 rules as patterns, the size of a whole call, ttl bounds —
// with every number read from lib/plans.ts. Validation stays with the lib/ services (their
// messages are more precise than a pattern mismatch); the published schema states the rules.

const MB = 1024 * 1024;
const DAY = 86_400;
const tiers = Object.keys(limits) as Tier[];

/** The largest HTML/JSON body any plan accepts: the cap on what one tool call may carry. */
export const BODY_BYTES = Math.max(...tiers.map((t) => limits[t].bodyBytes));
/** What a tools/call may weigh: the largest body plus room for the JSON-RPC envelope (lib/http-routes.ts). */
export const MCP_BODY_CAP = capOf("/mcp");

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

export const TTL_RULE = `ttl is the lifetime in whole seconds, at least ${TTL_MIN}; maximum per plan — ${perPlan((t) => (limits[t].ttlMaxSeconds === null ? `${TTL_CEILING_SECONDS} (100 years)` : `${limits[t].ttlMaxSeconds} (${days(limits[t].ttlMaxSeconds)})`))}. Default — ${perPlan((t) => (limits[t].ttlDefaultSeconds === null ? "never expires" : days(limits[t].ttlDefaultSeconds)))}.`;

export const FILES_RULE = `Files per call — ${perPlan((t) => String(limits[t].filesPerRequest))}.`;

/** How many versions of a drop are kept for rollback_drop, per plan (the live one included). */
export const VERSIONS_RULE = `Versions kept per drop, the live one included — ${perPlan((t) => String(limits[t].versionsKept))}; older ones are pruned.`;

/** render_check on every deploy tool (lib/mcp/render.ts). */
const renderCheck = z
  .boolean()
  .optional()
  .describe(
    "true: after deploying, open the page in a real browser (desktop and phone sizes) and report console errors, uncaught exceptions, failed requests and a blank page, with a screenshot. Use it before telling the user the site works.",
  );

const ttl = ttlSchema.optional().meta({ description: TTL_RULE, minimum: TTL_MIN, maximum: TTL_CEILING_SECONDS });

const MAX_FILE_BYTES = Math.max(...tiers.map((t) => limits[t].fileBytes));
const FILE_SIZE_RULE = `Per-file limit — ${perPlan((t) => mb(limits[t].fileBytes))}.`;
const minutes = (s: number) => (s % 60 === 0 ? `${s / 60} minutes` : `${s} s`);

const textValue = z.string().describe("Text content, stored as UTF-8.");
const base64Value = z.strictObject({
  encoding: z.literal("base64"),
  content: z.string().meta({
    description: "Standard base64 of the file's bytes: A–Z a–z 0–9 + /, = padding, no line breaks, no data: prefix.",
    pattern: BASE64_PATTERN,
  }),
});
const sha256 = z.string().meta({
  description: "SHA-256 of the file's bytes, 64 lowercase hex characters.",
  pattern: SHA256_HEX_PATTERN.source,
});
const size = z
  .int()
  .min(0)
  .meta({ description: `Size of the file in bytes. ${FILE_SIZE_RULE}`, maximum: MAX_FILE_BYTES });
const contentRef = z
  .strictObject({ sha256, size })
  .describe(
    "A content already stored for the caller: named by preflight_files and, when it was missing, sent with upload_content. Only the reference travels.",
  );

const fileValue = z.union([textValue, base64Value, contentRef]);

const PATHS_RULE = 'Paths: forward slashes, no leading slash, no "." or ".." segments, up to 1024 characters.';
const pathKeys = {
  propertyNames: { pattern: PATH_PATTERN, minLength: 1, maxLength: 1024 },
  minProperties: 1,
  maxProperties: MAX_FILES,
};

const files = z.record(z.string(), fileValue).meta({
  description: `Map from relative path (index.html, assets/app.js) to content: text, base64, or a {sha256, size} reference to a content stored with preflight_files/upload_content. ${FILES_RULE} ${PATHS_RULE} ${SIZE_RULE}`,
  ...pathKeys,
});

const uploadToken = z
  .string()
  .max(100)
  .optional()
  .describe(
    "The upload_token of preflight_files. Anonymous callers need it to deploy {sha256, size} references (their uploads belong to that preflight); callers with a key do not.",
  );

export const slug = z
  .string()
  .min(1)
  .max(100)
  .describe("The slug of the drop: the first label of its URL (list_drops shows them).");

/**
 * Published with its bounds, but checked in the tool (lib/idempotency.ts parseIdempotencyKey):
 * a bad key is an isError result with code invalid_request, never -32602.
 */
export const idempotencyKey = z
  .string()
  .optional()
  .meta({
    description:
      `Optional, 1 to ${IDEMPOTENCY_KEY_MAX_CHARS} printable ASCII characters (e.g. a fresh UUID per write): a retry of this call with the same key and the same arguments within ${IDEMPOTENCY_SECONDS / 3600} hours ` +
      "returns the first result and writes nothing; the same key with other arguments is refused with code conflict. Keys belong to the API key's account (anonymous: to the client address).",
    minLength: 1,
    maxLength: IDEMPOTENCY_KEY_MAX_CHARS,
    pattern: "^[\\x20-\\x7E]+$",
  });

const promote = z
  .boolean()
  .optional()
  .describe(
    "false: create the new version without making it live (a staged deploy): the result's version_url shows it, the live URL keeps serving live_version, and rollback_drop {version} makes it live. Default true; a first deploy is always live.",
  );

const aliasName = z
  .string()
  .min(1)
  .max(16)
  .describe(
    "The alias: 1 to 16 lowercase letters, digits and single hyphens, starting and ending with a letter or digit, not v followed by digits only (those name versions). <slug>---<alias> serves the version it points at.",
  );

/** `alias` on the deploy tools: `?alias=` of the deploy routes. */
const deployAlias = aliasName
  .optional()
  .describe(
    "Point this alias of the drop at the new version in the same call (created or moved; needs a key): <slug>---<alias> serves it, e.g. pr-42 with promote: false for a review copy. The result's alias gives its URL. 1 to 16 lowercase letters, digits and single hyphens, not v followed by digits only.",
  );

export const deployHtmlArgs = z
  .strictObject({
    html: z
      .string()
      .min(1)
      .describe(
        `The page to publish, served as index.html: a complete HTML document (inline CSS and JS are fine). ${SIZE_RULE}`,
      ),
    ttl,
    alias: deployAlias,
    idempotency_key: idempotencyKey,
    render_check: renderCheck,
  })
  .meta({
    examples: [
      { html: "<!doctype html><title>Hello</title><h1>Hello, world</h1>" },
      { html: "<h1>Launch party</h1>", ttl: 3600 },
    ],
  });

export const deployFilesArgs = z
  .strictObject({
    files,
    ttl,
    upload_token: uploadToken,
    alias: deployAlias,
    idempotency_key: idempotencyKey,
    render_check: renderCheck,
  })
  .meta({
    examples: [
      {
        files: {
          "index.html": '<link rel="stylesheet" href="style.css"><h1>Hi</h1>',
          "style.css": "h1 { color: teal }",
          "img/dot.png": { encoding: "base64", content: "iVBORw0KGgo=" },
        },
      },
    ],
  });

export const deployNamedArgs = z
  .strictObject({
    name: nameSchema.meta({
      description: `The alias (paid plans): ${NAME_PATTERN.source}. The first deploy of a name creates the drop; the next ones replace all its files and keep its URL.`,
    }),
    files,
    ttl,
    promote,
    alias: deployAlias,
    idempotency_key: idempotencyKey,
    render_check: renderCheck,
  })
  .meta({ examples: [{ name: "blog", files: { "index.html": "<h1>My blog</h1>" } }] });

export const appendFilesArgs = z
  .strictObject({
    slug,
    files: files.meta({
      description: `New files to add to the drop (paid plans); paths it already has are refused. ${FILES_RULE} ${SIZE_RULE}`,
    }),
    promote,
    alias: deployAlias,
    idempotency_key: idempotencyKey,
    render_check: renderCheck,
  })
  .meta({ examples: [{ slug: "k3j9x2ab", files: { "about.html": "<h1>About</h1>" } }] });

/** A list tool's page: its size and how many items to skip, within the API's bounds. */
const pageSize = z
  .int()
  .min(1)
  .max(LIST_LIMIT_MAX)
  .optional()
  .describe(`Page size, 1 to ${LIST_LIMIT_MAX} (default ${LIST_LIMIT_DEFAULT}).`);
const pageOffset = (items: string) =>
  z.int().min(0).max(MAX_OFFSET).optional().describe(`${items} to skip, 0 to ${MAX_OFFSET} (default 0).`);

export const listDropsArgs = z
  .strictObject({
    limit: pageSize,
    offset: pageOffset("Drops"),
  })
  .meta({ examples: [{}, { limit: 20, offset: 40 }] });

export const getDropArgs = z.strictObject({ slug }).meta({ examples: [{ slug: "k3j9x2ab" }] });

export const listVersionsArgs = z
  .strictObject({
    slug,
    limit: pageSize,
    offset: pageOffset("Versions"),
  })
  .meta({ examples: [{ slug: "k3j9x2ab" }] });

export const rollbackDropArgs = z
  .strictObject({
    slug,
    version: z
      .int()
      .min(1)
      .max(MAX_OFFSET)
      .describe(
        `A retained version of the drop (list_versions), older or newer than the live one: 1 to ${MAX_OFFSET}.`,
      ),
    idempotency_key: idempotencyKey,
  })
  .meta({ examples: [{ slug: "k3j9x2ab", version: 2 }] });
const retainedVersion = z
  .int()
  .min(1)
  .max(MAX_OFFSET)
  .optional()
  .describe("A retained version of the drop (list_versions); the live one when absent.");
export const listFilesArgs = z
  .strictObject({ slug, version: retainedVersion })
  .meta({ examples: [{ slug: "k3j9x2ab" }, { slug: "k3j9x2ab", version: 2 }] });
export const readFileArgs = z
  .strictObject({
    slug,
    path: z
      .string()
      .min(1)
      .max(1024)
      .describe("The file's path in the drop as list_files gives it, e.g. `index.html` or `_redirects`."),
    version: retainedVersion,
  })
  .meta({ examples: [{ slug: "k3j9x2ab", path: "index.html" }] });
/** How many aliases a drop may have, per plan (none for anonymous drops). */
export const ALIAS_RULE = `Aliases per drop — ${perPlan((t) => String(limits[t].aliasesPerDrop))}.`;

export const setAliasArgs = z
  .strictObject({
    slug,
    name: aliasName,
    version: z
      .int()
      .min(1)
      .max(MAX_OFFSET)
      .describe("A retained version of the drop (list_versions) for the alias to point at (created, or moved)."),
    idempotency_key: idempotencyKey,
  })
  .meta({ examples: [{ slug: "k3j9x2ab", name: "staging", version: 3 }] });
export const listAliasesArgs = z.strictObject({ slug }).meta({ examples: [{ slug: "k3j9x2ab" }] });
export const deleteAliasArgs = z
  .strictObject({ slug, name: aliasName, idempotency_key: idempotencyKey })
  .meta({ examples: [{ slug: "k3j9x2ab", name: "staging" }] });
export const deleteDropArgs = z
  .strictObject({ slug, idempotency_key: idempotencyKey })
  .meta({ examples: [{ slug: "k3j9x2ab" }] });
export const getLimitsArgs = z.strictObject({}).meta({ examples: [{}] });
export const addWebhookArgs = z
  .strictObject({
    url: webhookBodySchema.shape.url,
    events: webhookBodySchema.shape.events,
    idempotency_key: idempotencyKey,
  })
  .meta({
    examples: [
      { url: "https://ci.example.com/dropsite" },
      { url: "https://hooks.example.com/drops", events: ["drop.deployed", "drop.replaced"] },
    ],
  });
export const listWebhooksArgs = z.strictObject({}).meta({ examples: [{}] });
export const removeWebhookArgs = z
  .strictObject({
    id: z.string().min(1).max(64).describe("The webhook's id (wh_…), from add_webhook or list_webhooks."),
    idempotency_key: idempotencyKey,
  })
  .meta({ examples: [{ id: "wh_abcdefghijklmnopqrstuvwx" }] });
const domainHostname = z
  .string()
  .max(1000)
  .describe("The hostname, e.g. docs.example.com (any case; internationalised names as typed or as punycode).");
export const addDomainArgs = z
  .strictObject({ hostname: domainHostname, slug, idempotency_key: idempotencyKey })
  .meta({ examples: [{ hostname: "docs.example.com", slug: "k3j9x2ab" }] });
export const domainArgs = z
  .strictObject({ hostname: domainHostname, idempotency_key: idempotencyKey })
  .meta({ examples: [{ hostname: "docs.example.com" }] });
export const listDomainsArgs = z.strictObject({}).meta({ examples: [{}] });

export const deviceAuthorizeArgs = z.strictObject({ claims: deviceAuthorizeBodySchema.shape.claims }).meta({
  examples: [{}, { claims: [{ slug: "k3j9x2abcdefghjkmnpq", claim_token: "ct_…the claim_token of that deploy" }] }],
});
export const deviceTokenArgs = z
  .strictObject({
    device_code: z.string().min(1).max(200).describe("The device_code from device_authorize (not the user_code)."),
  })
  .meta({ examples: [{ device_code: "kq3…the device_code from device_authorize" }] });

export { deviceAuthorizationSchema, deviceTokenSchema };

export const preflightFilesArgs = z
  .strictObject({
    files: z.record(z.string(), z.strictObject({ sha256, size })).meta({
      description: `Map from relative path to the file's {sha256, size}, for every file of the deploy (unchanged ones too). ${FILES_RULE} ${PATHS_RULE}`,
      ...pathKeys,
    }),
    idempotency_key: idempotencyKey,
  })
  .meta({
    examples: [
      {
        files: {
          "index.html": { sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", size: 4 },
        },
      },
    ],
  });

export const uploadContentArgs = z
  .strictObject({
    sha256: sha256.meta({
      description: "SHA-256 of the content (one of preflight_files' missing hashes); the bytes are checked against it.",
    }),
    content: z
      .union([textValue, base64Value])
      .describe(
        `The content: text (stored as UTF-8) or {"encoding": "base64", "content": "…"}. ${FILE_SIZE_RULE} ${SIZE_RULE}`,
      ),
    upload_token: z
      .string()
      .max(100)
      .optional()
      .describe(
        `The upload_token of preflight_files (required without an API key). Uploads no deploy uses are kept ${minutes(UPLOAD_GRANT_SECONDS)}.`,
      ),
    idempotency_key: idempotencyKey,
  })
  .meta({
    examples: [
      {
        sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        content: "test",
        upload_token: "ut_…from preflight_files",
      },
    ],
  });

/** What deploy_directory says of its one-time URL: lifetime, one use, the zip size per plan. */
export const GRANT_RULE =
  `The URL works once, for ${minutes(DEPLOY_GRANT_SECONDS)}; a refused deploy (bad input) leaves it usable. ` +
  `Zip size — ${perPlan((t) => mb(limits[t].zipBytes))}; ${FILES_RULE.replace("per call", "per deploy")}`;

export const deployDirectoryArgs = z
  .strictObject({
    dir: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe("The local folder to publish, as the shell should see it (default: the current folder)."),
    ttl,
    name: nameSchema.optional().meta({
      description: `Paid plans: publish under this name (the first deploy creates it; later ones replace all its files). ${NAME_PATTERN.source}.`,
    }),
    promote: promote.describe(
      "With a name: false makes the deploy through the URL a staged one (the named drop's live version stays; the answer's version_url shows the new one). Default true; a first deploy is always live.",
    ),
    alias: deployAlias,
    idempotency_key: idempotencyKey,
    render_check: renderCheck,
  })
  .meta({
    examples: [
      { dir: "./dist" },
      { dir: "site", ttl: 86400 },
      { dir: "public", name: "docs" },
      { dir: "./dist", render_check: true },
      { dir: "./dist", name: "docs", promote: false, alias: "pr-42" },
    ],
  });

export const deployGrantSchema = z.object({
  url: z
    .string()
    .describe("The one-time deploy URL: POST a zip (application/zip), a FilesBody (application/json) or HTML to it."),
  method: z.literal("POST"),
  content_types: z.array(z.string()),
  expires_at: z.iso.datetime({ offset: true }),
  max_zip_bytes: z.int().describe("The largest zip this caller's plan accepts."),
  preflight_url: z
    .string()
    .describe("POST the files' hashes here first to upload only what is missing (the CLI does this)."),
  commands: z.object({
    zip: z.string().describe("Zips the folder into site.zip (dotfiles and node_modules left out)."),
    curl: z
      .string()
      .describe(
        "Sends site.zip to the one-time URL: as the body of one POST, or, where the server keeps bytes in Vercel Blob or S3, by reference (preflight, PUT straight to storage, deploy), so no request body to the app is over 4 MB.",
      ),
    npx: z.string().describe("Deploys the folder with the dropsite CLI through the one-time URL."),
  }),
});
