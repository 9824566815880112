import { randomUUID } from "node:crypto";

/**
 * The internal route drop hosts are rewritten to (pages/api/serve-drop); it never answers on the
 * app host.
 */
export const SERVE_PREFIX = "/api/serve-drop";
export const REWRITE_HEADER = "x-dropsite-rewrite";
/**
 * The drop host a rewritten request was sent to: `next start` hands the rewrite target the app's
 * own Host, so the proxy passes the original along (it always sets it, over any a client sent).
 */
export const DROP_HOST_HEADER = "x-dropsite-drop-host";

const KEY = Symbol.for("dropsite.rewriteToken");

/** A random token per process that marks requests the proxy has already rewritten. */
export function rewriteToken(): string {
  const g = globalThis as unknown as Record<symbol, string | undefined>;
  g[KEY] ??= randomUUID();
  return g[KEY];
}
