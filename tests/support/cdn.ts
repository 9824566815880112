import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

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

/** One POST to a purge endpoint, as received. */
export interface PurgeCall {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * A loopback purge endpoint (what CDN_PURGE_URL names): records every request and answers
 * `status` (200 unless told), after `delayMs` when set.
 */
export async function startPurgeRecorder(): Promise<{
  url: string;
  calls: PurgeCall[];
  status: number;
  delayMs: number;
  close(): Promise<void>;
}> {
  const rec = {
    url: "",
    calls: [] as PurgeCall[],
    status: 200,
    delayMs: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* kept as text */
      }
      rec.calls.push({ path: `${req.method} ${req.url}`, headers: req.headers, body });
      setTimeout(
        () => res.writeHead(rec.status, { "content-type": "application/json" }).end('{"success":true}'),
        rec.delayMs,
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  rec.url = `http://127.0.0.1:${port}/purge`;
  return rec;
}
