// A stand-in of Vercel's request context (what @vercel/functions' addCacheTag, invalidateByTag
// and dangerouslyDeleteByTag act through, at globalThis[Symbol.for('@vercel/request-context')]):
// every call is recorded, so a test sees which tags a response carried and which a change purged.

export type CdnCall = [string, ...unknown[]];

const REQUEST_CONTEXT = Symbol.for("@vercel/request-context");
const g = globalThis as unknown as Record<symbol, unknown>;

/** The calls recorded while installed (clear with `calls.splice(0)`), and how to (un)install. */
export function cdnRecorder(): { calls: CdnCall[]; install(): void; uninstall(): void } {
  const calls: CdnCall[] = [];
  const context = {
    get: () => ({
      addCacheTag: async (tag: string) => void calls.push(["addCacheTag", tag]),
      purge: {
        invalidateByTag: async (tag: string) => void calls.push(["invalidateByTag", tag]),
        dangerouslyDeleteByTag: async (tag: string) => void calls.push(["dangerouslyDeleteByTag", tag]),
      },
    }),
  };
  return {
    calls,
    install: () => void (g[REQUEST_CONTEXT] = context),
    uninstall: () => void delete g[REQUEST_CONTEXT],
  };
}
