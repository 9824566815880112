// What the serve path takes and gives: a request reduced to what serving reads, and a result
// either listener writes out (lib/plane/node.ts to the socket, serveDrop as a web Response).

interface HeaderGetter {
  get(name: string): string | null;
}

export interface ServeRequest {
  method: string;
  /** The request path as sent (still percent-encoded), without the query. */
  pathname: string;
  /** The query, with its "?", or "". */
  search?: string;
  headers: HeaderGetter;
  /**
   * Reads the request body, at most `cap` bytes ("too_large" past it, read no further). Only
   * the unlock form of a protected drop has a body the serve path reads.
   */
  readBody?: (cap: number) => Promise<Uint8Array | "too_large">;
  /**
   * Set by the serve path once it found the drop's manifest: the drop that answers, whatever the
   * status (the counts add to it, lib/stats/count.ts, without looking it up again).
   */
  served?: { id: string; slug: string };
  /** Set by the access gate when an emails-only drop's viewer cookie let the request in: the viewer's address. */
  viewer?: string;
}

export interface ServeResult {
  status: number;
  headers: Record<string, string>;
  /** Bytes in memory, a stream from storage, or nothing (HEAD, 304, redirects). */
  body: Uint8Array | ReadableStream<Uint8Array> | null;
}
