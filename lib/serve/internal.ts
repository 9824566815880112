import { randomUUID } from "node:crypto";

/** The internal route drop hosts are rewritten to; it never answers on the app host. */
export const SERVE_PREFIX = "/serve-drop";
export const REWRITE_HEADER = "x-dropsite-rewrite";

const KEY = Symbol.for("dropsite.rewriteToken");

/** A random token per process that marks requests the proxy has already rewritten. */
export function rewriteToken(): string {
  const g = globalThis as unknown as Record<symbol, string | undefined>;
  g[KEY] ??= randomUUID();
  return g[KEY];
}
