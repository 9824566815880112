// Running a tool: arguments checked against its input schema, an idempotency key honoured, and
// every failure rendered as an isError result an agent can relay.
import type { ImageBlock } from "../render";
import type { z } from "zod";
import { ApiError, toApiError } from "../../errors";
import { tierOf } from "../../deploy/quota";
import { idempotencyOwner, parseIdempotencyKey, runIdempotent, toolCallFingerprint } from "../../idempotency";
import type { Tier } from "../../plans";
import { openShownSecret, sealShownSecret, type ShownOnce } from "../../webhooks/secret";
import { forMcp } from "../hints";
import { QR_META_KEY, qrModules } from "../preview";
import type { ResourceLinkBlock, ToolCall, ToolDef, ToolRequest } from "./define";
import { optionalCaller, type Caller } from "../../auth/caller";
import { checkGate, TEAM_TOOL_GATES } from "../../teams/gates";

/** Maps a zod issue on an argument to the REST error code for the same mistake. */
function argumentError(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  const field = issue?.path[0];
  if (field === "ttl") return ApiError.fromZod(error, "The arguments", { code: "invalid_ttl", docs: "limits" });
  if (field === "password" || field === "mode") return ApiError.fromZod(error, "The arguments", { docs: "access" });
  if (field === "name")
    return ApiError.fromZod(error, "The arguments", {
      code: "invalid_name",
      hint: 'name: lowercase letters, digits and hyphens, starting with a letter or digit, up to 41 characters, without "---".',
      docs: "named-drops",
    });
  if (issue?.code === "unrecognized_keys" && issue.keys.includes("name")) {
    return ApiError.fromZod(error, "The arguments", {
      hint: "To publish under a stable name, call deploy_named {name, files} (paid plans).",
      docs: "mcp",
    });
  }
  return ApiError.fromZod(error, "The arguments", {
    hint: "Check the arguments against the tool's inputSchema (tools/list).",
    docs: "mcp",
  });
}

export interface ToolResult {
  [key: string]: unknown;
  // An image block has no text: readers of content[i].text see undefined there.
  content: (
    { type: "text"; text: string } | (ImageBlock & { text?: undefined }) | (ResourceLinkBlock & { text?: undefined })
  )[];
  structuredContent?: Record<string, unknown>;
  isError: boolean;
  _meta?: Record<string, unknown>;
}

/** Where a failed result carries the error envelope for programs (clients do not validate _meta). */
const ERROR_META_KEY = "dev.dropsite/error";

/**
 * Renders a failed tool run: text an agent can relay (code, error, hint, URLs) and the envelope
 * under _meta. No structuredContent: SDK 1.x clients validate it against the tool's
 * outputSchema even on isError results, and throw when it does not match.
 */
export function toolError(err: unknown, tier: Tier = "anonymous"): ToolResult {
  const e = forMcp(toApiError(err), tier);
  const env = e.envelope();
  const lines = [`Error (${env.code}): ${env.error}`];
  if (env.hint) lines.push(`Hint: ${env.hint}`);
  const retry = e.headers["Retry-After"];
  if (retry) lines.push(`Retry after ${retry} seconds.`);
  if (env.upgrade_url) lines.push(`Upgrade: ${env.upgrade_url}`);
  if (env.docs_url) lines.push(`Docs: ${env.docs_url}`);
  if (env.limit !== undefined && env.allowed !== undefined)
    lines.push(`Limit: ${env.limit} = ${env.allowed}${env.plan ? ` (plan ${env.plan})` : ""}`);
  if (env.unusable)
    lines.push(
      `Unusable hashes: ${env.unusable.slice(0, 50).join(", ")}${env.unusable.length > 50 ? ` and ${env.unusable.length - 50} more` : ""}`,
    );
  return {
    content: [{ type: "text", text: lines.join("\n") }],
    isError: true,
    _meta: { [ERROR_META_KEY]: { ...env } },
  };
}

type RunOutput = ShownOnce & { image?: ImageBlock; link?: ResourceLinkBlock };

/**
 * A write tool called with idempotency_key: runs once per caller and key (lib/idempotency.ts);
 * the same tool with the same arguments replays the first result, other arguments are a conflict.
 * A failed run stores nothing, so a retry runs again.
 */
async function runOnce(
  name: string,
  key: string,
  call: ToolCall,
  sealed: string | undefined,
  run: () => Promise<RunOutput>,
): Promise<RunOutput> {
  const fingerprint = toolCallFingerprint(call.ctx.env, name, call.raw);
  const answer = await runIdempotent(
    call.ctx,
    { caller: idempotencyOwner(call.ctx, call.req, call.caller), key, fingerprint },
    async () => ({
      status: 200,
      body: JSON.stringify(sealShownSecret(await run(), sealed, call.ctx.env)),
    }),
  );
  return openShownSecret(JSON.parse(answer.body) as RunOutput, sealed, call.ctx.env);
}

/**
 * Runs a known tool; every failure becomes an isError result. The caller is resolved from the
 * credential once (after the arguments check), and the tool runs with that one caller.
 */
export async function callTool(def: ToolDef, request: ToolRequest): Promise<ToolResult> {
  let resolving: Promise<Caller> | undefined;
  const resolveCaller = () => (resolving ??= optionalCaller(request.ctx, request.req));
  try {
    const parsed = def.input.safeParse(request.raw);
    if (!parsed.success) throw argumentError(parsed.error);
    const call: ToolCall = { ...request, caller: await resolveCaller() };
    // A team's credential reaches the tools its role may take, checked before anything runs.
    checkGate(call.caller, TEAM_TOOL_GATES[def.name]);
    // Each tool is typed by its own schemas; the call is safe because args came from that tool's own input schema.
    const run = () => (def.run as (a: unknown, c: ToolCall) => Promise<RunOutput>)(parsed.data, call);
    const key = (parsed.data as { idempotency_key?: unknown }).idempotency_key;
    const out =
      key === undefined ? await run() : await runOnce(def.name, parseIdempotencyKey(key), call, def.sealed, run);
    const result: ToolResult = {
      content: [{ type: "text", text: out.text }, ...(out.image ? [out.image] : []), ...(out.link ? [out.link] : [])],
      structuredContent: out.structured,
      isError: false,
    };
    // The preview's QR code travels with the result, for the view only (text and structuredContent stay as they were).
    if (def.preview && typeof out.structured.url === "string")
      result._meta = { [QR_META_KEY]: qrModules(out.structured.url) };
    return result;
  } catch (err) {
    // The caller's plan decides which advice is true; an unusable credential is advised as anonymous.
    const tier = await resolveCaller().then(tierOf, () => "anonymous" as const);
    return toolError(err, tier);
  }
}
