import type { AppContext } from "../context";
import type { ManifestFile } from "../db/serving";
import { compressedBytes, contentBytes, type Encoding } from "./cache";
import { unavailablePage } from "./pages";
import type { ServeResult } from "./types";

// A file's bytes for an answer: its compressed form from memory, its stored bytes from memory or
// streamed from storage (checked against the length its row says), and what a failed or stale
// read answers.

/** Storage no longer has a file the cached manifest names. */
export const STALE = Symbol("stale manifest");

export type Served = ServeResult | typeof STALE;

type Body = Uint8Array | ReadableStream<Uint8Array>;

/** What a read of bytes gives: the bytes, STALE, or the 503 page of a storage failure. */
export type Read<T> = T | typeof STALE | ServeResult;

/**
 * The compressed bytes of a cacheable text file; null when the form as stored is sent (the
 * compressed one is not smaller); STALE when storage no longer has the file.
 */
export function compressedForm(
  ctx: AppContext,
  file: ManifestFile,
  enc: Encoding,
): Uint8Array | Promise<Read<Uint8Array | null>> {
  const c = compressedBytes(ctx, file, enc);
  return c instanceof Uint8Array ? c : settleCompressed(ctx, file, c);
}

async function settleCompressed(
  ctx: AppContext,
  file: ManifestFile,
  c: Promise<Uint8Array | null> | null,
): Promise<Read<Uint8Array | null>> {
  let bytes: Uint8Array | null;
  try {
    bytes = await c;
  } catch (err) {
    return storageFailure(err);
  }
  if (bytes !== null) return bytes;
  const raw = contentBytes(ctx, file);
  return (raw instanceof Uint8Array ? raw : await raw) === null ? STALE : null;
}

/** The bytes of a file, or of its range, as stored: from memory when kept there, else streamed from storage. */
export function storedBody(
  ctx: AppContext,
  file: ManifestFile,
  inMemory: boolean,
  range: { start: number; end: number } | undefined,
): Read<Body> | Promise<Read<Body>> {
  if (!inMemory) return streamed(ctx, file, range);
  const c = contentBytes(ctx, file);
  if (c instanceof Uint8Array) return range ? c.subarray(range.start, range.end + 1) : c;
  return c.then<Read<Body>, ServeResult>(
    (bytes) => (bytes === null ? STALE : range ? bytes.subarray(range.start, range.end + 1) : bytes),
    storageFailure,
  );
}

/** A stream of a file from storage, checked against the length its row says. */
async function streamed(
  ctx: AppContext,
  file: ManifestFile,
  range: { start: number; end: number } | undefined,
): Promise<Read<Body>> {
  try {
    const stream = await ctx.storage.get(file.storageRef, range);
    if (!stream) return STALE;
    return stream.pipeThrough(exactLength(range ? range.end - range.start + 1 : file.size, file.storageRef));
  } catch (err) {
    return storageFailure(err);
  }
}

/**
 * Passes exactly `length` bytes (the Content-Length already sent) and errors on a stream that
 * runs past them or ends short: both listeners then end the connection instead of writing
 * bytes the header did not announce, which a proxy reusing the connection would read as the
 * start of the next response. Stored objects are checked against their rows when they are
 * stored and referenced; this is the last line, for an object changed behind the app's back.
 */
function exactLength(length: number, ref: string): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  const mismatch = (what: string) => {
    console.error(`[serve] stored object ${ref} is ${what} than its ${length} bytes; connection ended`);
    return new Error(`stored object is ${what} than the Content-Length sent`);
  };
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > length) controller.error(mismatch("longer"));
      else controller.enqueue(chunk);
    },
    flush(controller) {
      if (seen < length) controller.error(mismatch("shorter"));
    },
  });
}

function storageFailure(err: unknown): ServeResult {
  console.error("[serve] storage read failed:", err instanceof Error ? err.message : err);
  return unavailablePage();
}
