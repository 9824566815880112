// The JSON-RPC answers /mcp gives before the SDK sees a request: a body past the cap and a
// batch. An MCP client reads JSON-RPC error objects, never the REST envelope, so these are
// rendered here (no SDK import: the data plane's listener renders the same 413 when it refuses
// a declared length before reading, see lib/plane/node.ts).

/** JSON-RPC 2.0 "Invalid Request": also what a batch is on MCP since 2025-06-18. */
export const INVALID_REQUEST = -32600;
/** No standard code exists for "too large"; MCP SDKs answer an oversized body with -32600 too, with HTTP 413. */
export const TOO_LARGE = -32600;

export const BATCH_MESSAGE =
  "Batches are not supported: MCP removed JSON-RPC batching in revision 2025-06-18. Send one request per POST.";

export function tooLargeMessage(cap: number): string {
  return `The request body is larger than ${cap} bytes, the most one /mcp request may carry.`;
}

/** The bytes of a JSON-RPC error object with id null; with the request's id, as `data.request_id`. */
export function jsonRpcErrorBody(code: number, message: string, requestId?: string | null): string {
  const error = requestId ? { code, message, data: { request_id: requestId } } : { code, message };
  return JSON.stringify({ jsonrpc: "2.0", id: null, error });
}

/** A JSON-RPC error answer (id null: the request could not be read far enough to know its id). */
export function jsonRpcError(status: number, code: number, message: string, requestId?: string | null): Response {
  return new Response(jsonRpcErrorBody(code, message, requestId), {
    status,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
  });
}
