// The error code of each answered request, for the request log's `error_code`: the one renderer
// of the envelope (lib/errors.ts errorResponse) notes it under the request's id, and the
// listener takes it when it writes the request's line. Shared through globalThis, since Next's
// copy of lib/errors.ts renders envelopes and the data plane's copy of the listener logs them.
// A status without a noted code (an error page of a drop host) is named by its status.

const KEY = Symbol.for("dropsite.errorCodes");
const noted: Map<string, string> = ((globalThis as unknown as Record<symbol, Map<string, string> | undefined>)[KEY] ??=
  new Map<string, string>());
/** Past this many, a noted code no line took (an answer outside the listener) is dropped. */
const MAX_NOTED = 10_000;

/** Notes the code an error answer to request `id` carries. */
export function noteErrorCode(id: string, code: string): void {
  if (noted.size >= MAX_NOTED) noted.clear();
  noted.set(id, code);
}

const BY_STATUS: Record<number, string> = {
  400: "invalid_request",
  401: "auth_required",
  402: "subscription_required",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  410: "gone",
  413: "payload_too_large",
  416: "range_not_satisfiable",
  429: "rate_limited",
  500: "internal_error",
  502: "upstream_unavailable",
  503: "upstream_unavailable",
  504: "upstream_unavailable",
};

/** The error code of request `id`'s answer (noted, or named by an error status); undefined for a success. */
export function takeErrorCode(id: string, status: number): string | undefined {
  const code = noted.get(id);
  if (code !== undefined) noted.delete(id);
  if (status < 400) return undefined;
  return code ?? BY_STATUS[status] ?? `http_${status}`;
}
