// The wire vocabulary of POST /mcp: JSON-RPC 2.0 codes, the two protocol eras, the per-request
// `_meta` envelope of revision 2026-07-28, and the one error type for protocol misuse.

/** The modern revision this server speaks (server/discover, per-request `_meta`, no sessions). */
export const MODERN_VERSION = "2026-07-28";
export const MODERN_VERSIONS = [MODERN_VERSION] as const;
/** Legacy revisions answered through `initialize`, newest first. */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

/** Revision identifiers are ISO dates: lexicographic order is chronological (as the SDK compares them). */
export function isModernVersion(version: string): boolean {
  return version >= MODERN_VERSION;
}

export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  serverInfo: "io.modelcontextprotocol/serverInfo",
} as const;

export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** SEP-2243 HeaderMismatch: a standard header is missing or disagrees with the body. */
  headerMismatch: -32020,
  unsupportedProtocolVersion: -32022,
} as const;

export type RequestId = string | number;

export interface RpcErrorBody {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * A protocol-level failure answered as a JSON-RPC error. `status` is the HTTP status: the
 * modern era maps transport-level rejections to 400/404; in-band errors stay 200.
 */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly status: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "McpError";
  }

  body(): RpcErrorBody {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A JSON-RPC id is a string or an integer (null only in responses to unreadable requests). */
export function isRequestId(v: unknown): v is RequestId {
  return typeof v === "string" || (typeof v === "number" && Number.isInteger(v));
}

/** One parsed JSON-RPC message posted by a client. */
export type Inbound =
  | { kind: "request"; id: RequestId; method: string; params: Record<string, unknown> | undefined }
  | { kind: "notification"; method: string; params: Record<string, unknown> | undefined };

/** Checks the JSON-RPC 2.0 shape of one posted value (batches are refused by the caller). */
export function parseInbound(value: unknown): Inbound {
  const invalid = (message: string) => new McpError(RPC.invalidRequest, message, 400);
  if (!isPlainObject(value)) throw invalid("Invalid Request: the body must be one JSON-RPC 2.0 object.");
  if (value.jsonrpc !== "2.0") throw invalid('Invalid Request: jsonrpc must be "2.0".');
  if (typeof value.method !== "string" || value.method === "") {
    throw invalid("result" in value || "error" in value ? "Invalid Request: this server sends no requests, so it accepts no responses." : "Invalid Request: method must be a string.");
  }
  const params = value.params;
  if (params !== undefined && !isPlainObject(params)) throw invalid("Invalid Request: params must be an object.");
  if (!("id" in value)) return { kind: "notification", method: value.method, params };
  if (!isRequestId(value.id)) throw invalid("Invalid Request: id must be a string or an integer.");
  return { kind: "request", id: value.id, method: value.method, params };
}

/** The id to echo in an error for a value that may not have parsed as a request. */
export function echoId(value: unknown): RequestId | null {
  return isPlainObject(value) && isRequestId(value.id) ? value.id : null;
}

/** Decodes the `=?base64?…?=` sentinel SEP-2243 uses for header values that are not plain ASCII. */
export function decodeHeaderValue(raw: string): string {
  const m = /^=\?base64\?(.*)\?=$/.exec(raw);
  if (!m) return raw;
  try {
    return Buffer.from(m[1] ?? "", "base64").toString("utf8");
  } catch {
    return raw;
  }
}

export type Era = { era: "modern"; version: string; meta: Record<string, unknown> } | { era: "legacy" };

/**
 * Which era a request belongs to, and the checks that come before dispatch. Body first: a
 * `_meta` envelope (or a part of one) makes a request modern; a modern MCP-Protocol-Version
 * header without an envelope is a modern request missing its envelope; server/discover exists
 * only in the modern era. Everything else is a 2025-era request (initialize and friends).
 *
 * Order of the modern checks, as the SDK's validation ladder and the conformance suite expect:
 * header/body version mismatch (-32020), unsupported version (-32022), envelope (-32602),
 * standard headers (-32020). All are HTTP 400.
 */
export function classify(method: string, params: Record<string, unknown> | undefined, headers: Headers): Era {
  const header = headers.get("mcp-protocol-version")?.trim() || undefined;
  const meta = params?._meta;
  const metaObject = isPlainObject(meta) ? meta : undefined;
  const claimed = metaObject?.[META.protocolVersion];
  const hasEnvelopePart = metaObject !== undefined && (META.protocolVersion in metaObject || META.clientCapabilities in metaObject);
  const modern = hasEnvelopePart || (header !== undefined && isModernVersion(header)) || method === "server/discover";
  if (!modern) return { era: "legacy" };

  if (typeof claimed === "string" && header !== undefined && header !== claimed) {
    throw new McpError(RPC.headerMismatch, `Header mismatch: MCP-Protocol-Version is ${header} but _meta["${META.protocolVersion}"] is ${claimed}.`, 400);
  }
  const requested = typeof claimed === "string" ? claimed : header;
  if (requested !== undefined && !(MODERN_VERSIONS as readonly string[]).includes(requested)) {
    throw new McpError(RPC.unsupportedProtocolVersion, `Unsupported protocol version: ${requested}. This server supports ${MODERN_VERSIONS.join(", ")} (and ${LEGACY_VERSIONS[0]} and earlier through initialize).`, 400, {
      supported: [...MODERN_VERSIONS],
      requested,
    });
  }
  const missing: string[] = [];
  if (!metaObject) missing.push("_meta");
  else {
    if (typeof claimed !== "string") missing.push(META.protocolVersion);
    if (!isPlainObject(metaObject[META.clientCapabilities])) missing.push(META.clientCapabilities);
  }
  if (missing.length > 0 || !metaObject || typeof claimed !== "string") {
    throw new McpError(RPC.invalidParams, `Invalid params: revision ${MODERN_VERSION} requires params._meta with "${META.protocolVersion}" (string) and "${META.clientCapabilities}" (object); missing or invalid: ${missing.join(", ")}.`, 400, { missing });
  }

  if (header === undefined) throw new McpError(RPC.headerMismatch, "Header mismatch: the MCP-Protocol-Version header is required.", 400);
  const methodHeader = headers.get("mcp-method");
  if (methodHeader === null) throw new McpError(RPC.headerMismatch, "Header mismatch: the Mcp-Method header is required.", 400);
  if (decodeHeaderValue(methodHeader.trim()) !== method) {
    throw new McpError(RPC.headerMismatch, `Header mismatch: Mcp-Method is ${methodHeader} but the body's method is ${method}.`, 400);
  }
  if (method === "tools/call" && typeof params?.name === "string") {
    const nameHeader = headers.get("mcp-name");
    if (nameHeader === null) throw new McpError(RPC.headerMismatch, "Header mismatch: the Mcp-Name header is required on tools/call.", 400);
    if (decodeHeaderValue(nameHeader.trim()) !== params.name) {
      throw new McpError(RPC.headerMismatch, `Header mismatch: Mcp-Name is ${nameHeader} but params.name is ${params.name}.`, 400);
    }
  }
  return { era: "modern", version: claimed, meta: metaObject };
}
