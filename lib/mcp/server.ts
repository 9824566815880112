import type { AppContext } from "../context";
import { ApiError } from "../errors";
import { readBodyCapped } from "../http";
import { limits } from "../plans";
import { callTool, findTool, toolDescriptors, toolError } from "./tools";
import {
  LEGACY_VERSIONS,
  META,
  MODERN_VERSIONS,
  McpError,
  RPC,
  classify,
  echoId,
  isModernVersion,
  isPlainObject,
  parseInbound,
  type RequestId,
} from "./protocol";

// POST /mcp: a stateless JSON-RPC 2.0 endpoint, dual-era. Modern requests (revision 2026-07-28)
// carry a `_meta` envelope and standard headers on every request; legacy clients (≤ 2025-11-25)
// send `initialize` first and are answered the old way, without sessions. One message per POST:
// batches are refused, notifications are accepted with 202 and no body.

const SERVER_INFO = { name: "dropsite", title: "Dropsite static hosting", version: "1.0.0" };

const INSTRUCTIONS =
  "Dropsite publishes static websites. deploy_html publishes one HTML page; deploy_files publishes a map of files; " +
  "both return a public URL. Without an API key deploys are anonymous and return a claim_token the user needs to keep the drop. " +
  "With Authorization: Bearer sp_… the tools act as that account: list_drops and delete_drop need a key. get_limits shows what applies. " +
  "Failed tool calls return isError with a code and a hint to relay to the user.";

/** Tool list and discovery results are the same for every caller. */
const CACHE = { ttlMs: 300_000, cacheScope: "public" } as const;

/** The largest HTML/JSON body any plan accepts, plus room for the JSON-RPC envelope. */
const BODY_CAP = Math.max(...Object.values(limits).map((l) => l.bodyBytes)) + 256 * 1024;

const JSON_HEADERS = { "Content-Type": "application/json", "Cache-Control": "no-store" };

function reply(id: RequestId | null, payload: { result: unknown } | { error: unknown }, status = 200): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id, ...payload }), { status, headers: JSON_HEADERS });
}

function errorReply(id: RequestId | null, err: McpError): Response {
  return reply(id, { error: err.body() }, err.status);
}

/** Handles one POST /mcp. Never throws: every failure is a JSON-RPC error or a tool error result. */
export async function handleMcp(ctx: AppContext, req: Request): Promise<Response> {
  let value: unknown;
  try {
    const buf = await readBodyCapped(req, BODY_CAP, () => new ApiError("payload_too_large", "The JSON-RPC body is too large."));
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(buf));
  } catch (err) {
    if (err instanceof ApiError) {
      return errorReply(null, new McpError(RPC.invalidRequest, `Request too large: JSON-RPC bodies are limited to ${BODY_CAP} bytes.`, 413, toolError(err).structuredContent));
    }
    return errorReply(null, new McpError(RPC.parseError, "Parse error: the body is not valid JSON.", 400));
  }
  if (Array.isArray(value)) {
    return errorReply(null, new McpError(RPC.invalidRequest, "Invalid Request: batches are not supported; send one JSON-RPC message per POST.", 400));
  }
  const id = echoId(value);
  try {
    const msg = parseInbound(value);
    if (msg.kind === "notification") return new Response(null, { status: 202 });
    const era = classify(msg.method, msg.params, req.headers);
    const result = era.era === "modern" ? await modern(ctx, req, msg.method, msg.params) : await legacy(ctx, req, msg.method, msg.params);
    return reply(msg.id, { result });
  } catch (err) {
    if (err instanceof McpError) return errorReply(id, err);
    console.error("[mcp] internal error", err);
    return errorReply(id, new McpError(RPC.internalError, "Internal error.", 500));
  }
}

const serverMeta = { [META.serverInfo]: SERVER_INFO };

// Revision 2026-07-28: every result says resultType "complete" and identifies the server in _meta.
async function modern(ctx: AppContext, req: Request, method: string, params: Record<string, unknown> | undefined): Promise<unknown> {
  switch (method) {
    case "server/discover":
      return {
        resultType: "complete",
        supportedVersions: [...MODERN_VERSIONS],
        capabilities: { tools: { listChanged: false } },
        instructions: INSTRUCTIONS,
        ...CACHE,
        _meta: serverMeta,
      };
    case "tools/list":
      return { resultType: "complete", tools: toolDescriptors(), ...CACHE, _meta: serverMeta };
    case "tools/call":
      return { resultType: "complete", ...(await runTool(ctx, req, params)), _meta: serverMeta };
    default:
      // Includes initialize, ping and logging/setLevel: removed from the modern era.
      throw new McpError(RPC.methodNotFound, `Method not found: ${method}.`, 404);
  }
}

// Revisions up to 2025-11-25: initialize answers the old way (no session id); errors are in-band.
async function legacy(ctx: AppContext, req: Request, method: string, params: Record<string, unknown> | undefined): Promise<unknown> {
  const header = req.headers.get("mcp-protocol-version")?.trim();
  if (header && method !== "initialize" && !(LEGACY_VERSIONS as readonly string[]).includes(header) && !isModernVersion(header)) {
    throw new McpError(RPC.invalidRequest, `Unsupported MCP-Protocol-Version header: ${header}. Supported: ${[...MODERN_VERSIONS, ...LEGACY_VERSIONS].join(", ")}.`, 400);
  }
  switch (method) {
    case "initialize": {
      const requested = params?.protocolVersion;
      if (typeof requested !== "string") throw new McpError(RPC.invalidParams, "Invalid params: initialize needs params.protocolVersion (string).", 200);
      const version = (LEGACY_VERSIONS as readonly string[]).includes(requested) ? requested : LEGACY_VERSIONS[0];
      return { protocolVersion: version, capabilities: { tools: { listChanged: false } }, serverInfo: SERVER_INFO, instructions: INSTRUCTIONS };
    }
    case "ping":
      return {};
    case "tools/list":
      return { tools: toolDescriptors() };
    case "tools/call":
      return runTool(ctx, req, params);
    default:
      throw new McpError(RPC.methodNotFound, `Method not found: ${method}.`, 200);
  }
}

async function runTool(ctx: AppContext, req: Request, params: Record<string, unknown> | undefined) {
  const name = params?.name;
  if (typeof name !== "string") throw new McpError(RPC.invalidParams, "Invalid params: tools/call needs params.name (string).", 200);
  const def = findTool(name);
  if (!def) {
    throw new McpError(RPC.invalidParams, `Unknown tool: ${name}. Tools: ${toolDescriptors().map((t) => t.name as string).join(", ")}.`, 200, { tool: name });
  }
  const args = params?.arguments ?? {};
  if (!isPlainObject(args)) throw new McpError(RPC.invalidParams, "Invalid params: arguments must be an object.", 200);
  return callTool(def, { ctx, req, raw: args });
}
