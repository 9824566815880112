import { AsyncLocalStorage } from "node:async_hooks";
import {
  createMcpHandler,
  isLegacyRequest,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { AppContext } from "../context";
import { ApiError } from "../errors";
import { readBodyCapped } from "../http";
import { BATCH_MESSAGE, INVALID_REQUEST, jsonRpcError, TOO_LARGE, tooLargeMessage } from "./jsonrpc";
import { MCP_BODY_CAP } from "./schemas";
import { callTool, findTool, toolDescriptors } from "./tools";
import { PREVIEW_URI, previewResource, readPreview } from "./preview";
import { bearerCredential, callerFromCredential, isOauthAccessToken } from "../auth/caller";
import { invalidTokenChallenge } from "../oauth/resource";

export { MCP_BODY_CAP };

// POST /mcp on the official server SDK: createMcpHandler serves revision 2026-07-28 statelessly
// (server/discover, per-request _meta, the validation ladder) and answers 2025-era clients
// through its stateless legacy fallback (initialize without sessions). One low-level Server per
// request carries our tool list and dispatch; the HTTP request (Bearer key, client IP) reaches
// the tools through the factory's requestInfo.

const SERVER_INFO = { name: "dropsite", title: "Dropsite static hosting", version: "1.0.0" };

export const INSTRUCTIONS =
  "Dropsite publishes static websites and returns their public URL. deploy_html publishes one HTML page; deploy_files publishes a map of files (text or base64); " +
  "each call makes a new drop at a new URL. Without an API key deploys are anonymous and return a claim_token the user needs to keep the drop. " +
  "With Authorization: Bearer sp_… the tools act as that account: list_drops, get_drop, delete_drop, set_access (password-protect a drop, open it to its team's members only, or make it public), and on paid plans deploy_named (a stable URL whose content each call replaces) and append_files need a key. " +
  "To redeploy only what changed: preflight_files, upload_content for each missing hash, then deploy with {sha256, size} values. With a shell, deploy_directory returns a one-time URL and a command that publishes a local folder without pasting it. " +
  "Without a key, device_authorize (with the claim tokens of earlier anonymous drops, to keep them) and device_token get one once the user approves in the browser. get_limits shows what applies. " +
  "Every tool that writes takes an optional idempotency_key: send a fresh one per write and the same one when retrying after a timeout, and the retry returns the first result instead of writing twice. " +
  "Failed tool calls return isError with a code and a hint to relay to the user.";

/** Tool list and discovery results are the same for every caller. */
const PUBLIC_CACHE = { ttlMs: 300_000, cacheScope: "public" } as const;

function buildServer(ctx: AppContext, req: Request): Server {
  const server = new Server(SERVER_INFO, {
    // resources: the MCP Apps preview of the deploy tools (lib/mcp/preview.ts), the one resource.
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    instructions: INSTRUCTIONS,
    cacheHints: {
      "tools/list": PUBLIC_CACHE,
      "server/discover": PUBLIC_CACHE,
      "resources/list": PUBLIC_CACHE,
      "resources/read": PUBLIC_CACHE,
    },
  });
  server.setRequestHandler("tools/list", () => ({ tools: toolDescriptors() }));
  server.setRequestHandler("resources/list", () => ({ resources: [previewResource(ctx.env)] }));
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [] }));
  server.setRequestHandler("resources/read", async (request) => {
    if (request.params.uri !== PREVIEW_URI)
      throw new ProtocolError(
        ProtocolErrorCode.ResourceNotFound,
        `Unknown resource: ${request.params.uri}. Resources: ${PREVIEW_URI}.`,
        { uri: request.params.uri },
      );
    return readPreview(ctx.env);
  });
  server.setRequestHandler("tools/call", async (request) => {
    const { name, arguments: args } = request.params;
    const def = findTool(name);
    if (!def) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool: ${name}. Tools: ${toolDescriptors()
          .map((t) => t.name)
          .join(", ")}.`,
        { tool: name },
      );
    }
    return callTool(def, { ctx, req, raw: args ?? {} });
  });
  return server;
}

// The context of the request being served, for the factory (the handler is built once).
const current = new AsyncLocalStorage<AppContext>();

function factory({ requestInfo }: { requestInfo?: Request }): Server {
  const ctx = current.getStore();
  if (!ctx || !requestInfo) throw new Error("MCP server factory called outside handleMcp");
  return buildServer(ctx, requestInfo);
}

/** Protocol misuse is answered to the client; only our own failures are worth a log line. */
const onerror = (err: Error) => {
  if (err instanceof ProtocolError || err.message.startsWith("Rejected inbound request")) return;
  console.error("[mcp]", err);
};

// Modern traffic: the SDK's stateless 2026-07-28 entry, answering JSON, never SSE.
const modern = createMcpHandler(factory, {
  legacy: "reject",
  responseMode: "json",
  maxRequestBodySize: MCP_BODY_CAP,
  onerror,
});

/**
 * 2025-era traffic (initialize and friends): the SDK's streamable HTTP transport without
 * sessions, one server per request as createMcpHandler's own stateless fallback does, but with
 * JSON responses instead of an SSE stream.
 */
async function legacy(original: Request): Promise<Response> {
  const req = acceptingJson(original);
  const server = factory({ requestInfo: req });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MCP_BODY_CAP,
  });
  try {
    await server.connect(transport);
    return await transport.handleRequest(req);
  } finally {
    await transport.close().catch(() => undefined);
    await server.close().catch(() => undefined);
  }
}

/**
 * The SDK's 2025-era transport answers 406 unless Accept names both JSON and SSE. This
 * endpoint only ever answers JSON, so a caller that accepts JSON (or says nothing, like curl) is
 * served instead of refused.
 */
function acceptingJson(req: Request): Request {
  const accept = req.headers.get("accept") ?? "";
  if (/application\/json/.test(accept) && /text\/event-stream/.test(accept)) return req;
  const headers = new Headers(req.headers);
  headers.set("accept", "application/json, text/event-stream");
  return new Request(req, { headers });
}

/**
 * The framing checks of both eras, before either SDK entry reads the body: past MCP_BODY_CAP is
 * 413 and a JSON array (a batch, which 2025-06-18 removed) is 400, each a JSON-RPC error with
 * id null. Without this the legacy entry would read a batch as a request of an unknown
 * protocol version (-32000), and the cap would answer in whichever form the entry chose.
 * Answers the request to hand on (its body already read), or the refusal.
 */
async function framed(req: Request): Promise<Request | Response> {
  let bytes: Uint8Array;
  try {
    bytes = await readBodyCapped(
      req,
      MCP_BODY_CAP,
      () => new ApiError("payload_too_large", tooLargeMessage(MCP_BODY_CAP)),
    );
  } catch (err) {
    if (err instanceof ApiError && err.code === "payload_too_large")
      return jsonRpcError(413, TOO_LARGE, err.message, req.headers.get("x-request-id"));
    throw err;
  }
  if (isBatch(bytes)) return jsonRpcError(400, INVALID_REQUEST, BATCH_MESSAGE, req.headers.get("x-request-id"));
  return new Request(req.url, { method: req.method, headers: req.headers, body: bytes as Uint8Array<ArrayBuffer> });
}

/** A body whose JSON value is an array (what is not JSON at all is the SDK's -32700). */
function isBatch(bytes: Uint8Array): boolean {
  let i = 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  if (bytes[i] !== 0x5b) return false;
  try {
    return Array.isArray(JSON.parse(new TextDecoder().decode(bytes)));
  } catch {
    return false;
  }
}

/**
 * An OAuth access token that is not accepted (expired, revoked, for another resource) is
 * answered at the HTTP level, before any JSON-RPC: 401 with the challenge naming the resource
 * metadata, which is what makes an OAuth client refresh or start the authorization flow (MCP
 * authorization, RFC 6750). API keys and ID tokens keep their tool-level auth_required answer,
 * and no credential at all stays anonymous.
 */
async function refusedAccessToken(ctx: AppContext, req: Request): Promise<Response | undefined> {
  const credential = bearerCredential(req);
  if (typeof credential !== "string" || !isOauthAccessToken(credential)) return undefined;
  return (await callerFromCredential(ctx, credential, "mcp")) ? undefined : invalidTokenChallenge(ctx);
}

/** Handles one POST /mcp (the Origin policy is applied by the route before this). */
export async function handleMcp(ctx: AppContext, original: Request): Promise<Response> {
  const refused = await refusedAccessToken(ctx, original);
  if (refused) return refused;
  const req = await framed(original);
  if (req instanceof Response) return req;
  const answer = await current.run(ctx, async () =>
    (await isLegacyRequest(req, undefined, { maxRequestBodySize: MCP_BODY_CAP })) ? legacy(req) : modern.fetch(req),
  );
  return withRequestId(answer, original.headers.get("x-request-id"));
}

/**
 * Every JSON-RPC error this endpoint answers names the request (`error.data.request_id`, as
 * the REST envelope's `request_id`), the SDK's own errors (-32700, -32601, -32602, …) too; what
 * the SDK put in `data` stays.
 */
async function withRequestId(res: Response, requestId: string | null): Promise<Response> {
  if (!requestId || !(res.headers.get("content-type") ?? "").startsWith("application/json")) return res;
  const text = await res.text();
  let body: unknown;
  try {
    body = text.includes('"error"') ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const error =
    body && typeof body === "object" && !Array.isArray(body) ? (body as { error?: unknown }).error : undefined;
  let out = text;
  if (error && typeof error === "object" && !Array.isArray(error)) {
    const e = error as { data?: unknown };
    const data =
      e.data && typeof e.data === "object" && !Array.isArray(e.data)
        ? e.data
        : e.data === undefined
          ? {}
          : { detail: e.data };
    e.data = { ...data, request_id: requestId };
    out = JSON.stringify(body);
  }
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  return new Response(out, { status: res.status, statusText: res.statusText, headers });
}
