import { z } from "zod";
import type { AppContext } from "../context";
import { ApiError, authRequired, toApiError } from "../errors";
import { optionalCaller, type Caller } from "../auth/caller";
import { guardAccountRoute } from "../auth/guard";
import { decodeFilesMap, tooLargeError } from "../deploy/body";
import { normalizeFiles, type InputFile } from "../deploy/paths";
import { deployFiles, guardDeployRate } from "../drops/deploy-request";
import { tierOf } from "../drops/deploy";
import { deleteDrop, describeLimits, listDrops } from "../drops/manage";
import { isPaid, limits, type Tier } from "../plans";
import {
  deleteDropArgsSchema,
  deleteDropResponseSchema,
  deployFilesArgsSchema,
  deployHtmlArgsSchema,
  deployResponseSchema,
  getLimitsArgsSchema,
  limitsResponseSchema,
  listDropsArgsSchema,
  listDropsResponseSchema,
  type DeployResponse,
} from "../schemas";

// The MCP tools: thin adapters over the same lib/ services as the REST routes. A tool that runs
// and fails (limits, plan gates, bad arguments, auth) answers a result with isError: true whose
// structuredContent is the error envelope and whose text an agent can relay.

export interface ToolCall {
  ctx: AppContext;
  req: Request;
  /** Arguments exactly as parsed from the request JSON (not a zod copy). */
  raw: Record<string, unknown>;
}

interface ToolDef<I extends z.ZodType, O extends z.ZodType> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  run(args: z.infer<I>, call: ToolCall): Promise<{ structured: z.infer<O>; text: string }>;
}

function tool<I extends z.ZodType, O extends z.ZodType>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}

const CLAIM_TEXT = (base: string, d: DeployResponse) =>
  `This drop is anonymous: it is online for 30 days, then claimable for 30 more. To keep it, your human logs in at ${base} and claims it with slug ${d.slug} and claim_token ${d.claim_token} ` +
  `(or sends POST ${base}/claim with their credential and {"slug": "${d.slug}", "claim_token": "${d.claim_token}"}). The token works once; keep it private.`;

function deployText(ctx: AppContext, d: DeployResponse): string {
  const lines = [`Deployed ${d.files.length} file${d.files.length === 1 ? "" : "s"}: ${d.url}`];
  if (d.name) lines.push(`Named drop "${d.name}"${d.replaced ? " (content replaced, same URL)" : ""}.`);
  lines.push(d.expires_at ? `Expires at ${d.expires_at}.` : "Never expires.");
  if (d.claim_token) lines.push(CLAIM_TEXT(ctx.env.BASE_URL, d));
  return lines.join("\n");
}

async function caller(call: ToolCall): Promise<Caller> {
  return optionalCaller(call.ctx, call.req);
}

async function accountCaller(call: ToolCall) {
  const c = await caller(call);
  if (!c.account) throw authRequired();
  await guardAccountRoute(call.ctx, c);
  return c as Caller & { account: NonNullable<Caller["account"]> };
}

const deployOpts = (args: { name?: string; ttl?: number }) => ({ ttl: args.ttl === undefined ? null : String(args.ttl), name: args.name ?? null });

/** Both deploy tools: the deploy rate guard, the caller, the tool's own files, then the REST deploy path. */
async function runDeploy(args: { name?: string; ttl?: number }, call: ToolCall, filesFor: (tier: Tier) => InputFile[]) {
  await guardDeployRate(call.ctx, call.req);
  const c = await caller(call);
  const d = await deployFiles(call.ctx, c, deployOpts(args), normalizeFiles(filesFor(tierOf(c))));
  return { structured: d, text: deployText(call.ctx, d) };
}

const DEPLOY_COMMON =
  "Without an API key the drop is anonymous: it lives 30 days and the result carries a claim_token the user needs to keep it. " +
  "With a key (Authorization: Bearer sp_…) it belongs to that account. ttl (seconds, minimum 60) shortens or extends the lifetime within the plan's limits; " +
  "name (paid plans) makes a stable alias: deploying the same name again replaces that drop's content and keeps its URL. Call get_limits to see what applies.";

export const tools = [
  tool({
    name: "deploy_html",
    title: "Publish an HTML page",
    description: `Publish one HTML document as a new website and get its public URL. The html is served as index.html at https://<slug>.<serve domain>/. ${DEPLOY_COMMON}`,
    input: deployHtmlArgsSchema,
    output: deployResponseSchema,
    // Publishes to the public web; with name it replaces an existing drop's content.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    run: (args, call) =>
      runDeploy(args, call, (tier) => {
        const bytes = new TextEncoder().encode(args.html);
        if (bytes.byteLength > limits[tier].bodyBytes) {
          throw tooLargeError(`The html is ${bytes.byteLength} bytes; pages are limited to ${Math.round(limits[tier].bodyBytes / 1048576)} MB.`, isPaid(tier));
        }
        return [{ path: "index.html", bytes }];
      }),
  }),
  tool({
    name: "deploy_files",
    title: "Publish a set of files",
    description:
      `Publish a static site from a map of relative paths to contents and get its public URL. Values are text, or {"encoding": "base64", "content": "…"} for binary files (images, fonts). ` +
      `index.html is served at /; /about serves about.html or about/index.html; a 404.html is used for missing paths. At most 100 files per call on free plans (900 paid). ${DEPLOY_COMMON}`,
    input: deployFilesArgsSchema,
    output: deployResponseSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    // The raw map, not zod's copy: a "__proto__" path must be refused, not silently dropped.
    run: (args, call) => runDeploy(args, call, (tier) => decodeFilesMap(call.raw.files, limits[tier], isPaid(tier))),
  }),
  tool({
    name: "list_drops",
    title: "List my drops",
    description: "List the drops of the account whose API key is sent (Authorization: Bearer sp_…), newest first, with URL, name, file count and expiry. Pages with limit (1–500, default 100) and offset. Requires a key.",
    input: listDropsArgsSchema,
    output: listDropsResponseSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(args, call) {
      const c = await accountCaller(call);
      const page = await listDrops(call.ctx, c.account, { limit: args.limit ?? 100, offset: args.offset ?? 0 });
      const lines = page.drops.map((d) => `- ${d.slug}${d.name ? ` (${d.name})` : ""}: ${d.url} · ${d.file_count} files · ${d.expires_at ? `expires ${d.expires_at}` : "no expiry"}`);
      return { structured: page, text: [`${page.total} drop${page.total === 1 ? "" : "s"} in this account; showing ${page.drops.length}.`, ...lines].join("\n") };
    },
  }),
  tool({
    name: "delete_drop",
    title: "Delete a drop",
    description: "Delete one of the account's drops by slug: its files and URL are removed for good (edge caches may serve it for up to 60 s). Requires a key. Drops of other accounts answer not_found.",
    input: deleteDropArgsSchema,
    output: deleteDropResponseSchema,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async run(args, call) {
      const c = await accountCaller(call);
      const r = await deleteDrop(call.ctx, c.account, args.slug);
      return { structured: r, text: `Deleted drop ${r.deleted}.` };
    },
  }),
  tool({
    name: "get_limits",
    title: "Show my plan's limits",
    description: "Show the limits that apply to the caller: plan (anonymous without a key), files per request, sizes, lifetime (ttl) bounds, whether named drops are available, deploys per minute. Call it before a large deploy.",
    input: getLimitsArgsSchema,
    output: limitsResponseSchema,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(_args, call) {
      const c = await caller(call);
      const l = describeLimits(call.ctx, c.account);
      const ttlMax = l.limits.ttl_max_seconds === null ? "no maximum" : `max ${l.limits.ttl_max_seconds} s`;
      return {
        structured: l,
        text: `Plan: ${l.plan}. Up to ${l.limits.files_per_request} files per deploy, ${l.limits.body_bytes} bytes per HTML/JSON body, ${l.limits.file_bytes} bytes per file; ttl min ${l.limits.ttl_min_seconds} s, ${ttlMax}; named drops: ${l.limits.named_drops ? "yes" : "no"}; ${l.limits.deploys_per_minute} deploys per minute.`,
      };
    },
  }),
] as const;

/**
 * zod writes a nullable field as `type: ["string", "null"]`; clients that map tool schemas onto a
 * single-type dialect (the Inspector warns about it) read `anyOf` of single types more reliably.
 */
function singleTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(singleTypes);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = singleTypes(v);
  if (Array.isArray(out.type) && out.anyOf === undefined) {
    const { type, ...rest } = out as { type: unknown[] };
    return { ...rest, anyOf: type.map((t) => ({ type: t })) };
  }
  return out;
}

const jsonSchema = (schema: z.ZodType, io: "input" | "output") => singleTypes(z.toJSONSchema(schema, { target: "draft-2020-12", io })) as Record<string, unknown>;

let descriptors: Record<string, unknown>[] | undefined;

/** The tool descriptors of tools/list (the same in both eras), generated once. */
export function toolDescriptors(): Record<string, unknown>[] {
  descriptors ??= tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: jsonSchema(t.input, "input"),
    outputSchema: jsonSchema(t.output, "output"),
    annotations: { title: t.title, ...t.annotations },
  }));
  return descriptors;
}

export function findTool(name: string) {
  return tools.find((t) => t.name === name);
}

/** Maps a zod issue on an argument to the REST error code for the same mistake. */
function argumentError(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const field = issue?.path[0];
  const where = issue && issue.path.length ? `${issue.path.map(String).join(".")}: ` : "";
  const message = `Invalid arguments: ${where}${issue?.message ?? "invalid"}.`;
  if (field === "ttl") return new ApiError("invalid_ttl", message, { hint: "ttl is a whole number of seconds, at least 60; call get_limits for your plan's maximum.", docs: "limits" });
  if (field === "name") return new ApiError("invalid_name", message, { hint: "name: lowercase letters, digits and hyphens, starting with a letter or digit, up to 41 characters.", docs: "named-drops" });
  return new ApiError("invalid_request", message, { hint: "Check the arguments against the tool's inputSchema (tools/list).", docs: "mcp" });
}

export interface ToolResult {
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
  isError: boolean;
}

/** Renders a failed tool run: the envelope as structuredContent, and text an agent can relay. */
export function toolError(err: unknown): ToolResult {
  const e = toApiError(err);
  const env = e.envelope();
  const lines = [`Error (${env.code}): ${env.error}`];
  if (env.hint) lines.push(`Hint: ${env.hint}`);
  const retry = e.headers["Retry-After"];
  if (retry) lines.push(`Retry after ${retry} seconds.`);
  if (env.upgrade_url) lines.push(`Upgrade: ${env.upgrade_url}`);
  if (env.docs_url) lines.push(`Docs: ${env.docs_url}`);
  return { content: [{ type: "text", text: lines.join("\n") }], structuredContent: { ...env }, isError: true };
}

/** Runs a known tool; every failure becomes an isError result. */
export async function callTool(def: (typeof tools)[number], call: ToolCall): Promise<ToolResult> {
  try {
    const parsed = def.input.safeParse(call.raw);
    if (!parsed.success) throw argumentError(parsed.error);
    // Each entry of `tools` is typed by its own schemas; the union call is safe because args came from that tool's own input schema.
    const out = await (def.run as (a: unknown, c: ToolCall) => Promise<{ structured: Record<string, unknown>; text: string }>)(parsed.data, call);
    return { content: [{ type: "text", text: out.text }], structuredContent: out.structured, isError: false };
  } catch (err) {
    return toolError(err);
  }
}
