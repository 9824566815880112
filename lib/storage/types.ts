// Bytes of drops live behind this interface. Keys are POSIX paths; a put returns the ref that
// the database records and later hands back to get.

export interface ByteRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

/** A request a client sends as it is (any HTTP client) to write one object straight to storage. */
export interface DirectUploadTarget {
  url: string;
  method: "PUT";
  headers: Record<string, string>;
}

/**
 * Storage that clients can write to without the app in between (Vercel Blob, S3). What a client
 * writes is not trusted: the app reads it back and checks it before any file references it.
 */
export interface DirectUploads {
  /**
   * A target that writes exactly `key`, at most `size` bytes, until `validUntil`; where the store
   * can, bound to exactly `size` bytes of SHA-256 `sha256` (hex), or never over an existing object.
   */
  target(key: string, size: number, validUntil: Date, sha256: string): Promise<DirectUploadTarget>;
  /** The ref and size of the object under key (written by a client), or null when there is none. */
  stat(key: string): Promise<{ ref: string; size: number } | null>;
}

export interface Storage {
  readonly kind: string;
  /** Present when clients can upload straight to this storage; absent, every upload goes through the app. */
  readonly direct?: DirectUploads;
  /**
   * Stores bytes under key (overwriting) and returns the ref to read them back. `sha256` (hex),
   * when the caller has hashed the bytes already, spares a store that signs or checks them a
   * second hash of the same bytes (S3's payload hash).
   */
  put(key: string, bytes: Uint8Array, contentType: string, sha256?: string): Promise<string>;
  /** Streams the bytes of ref, or the given range of them; null when absent. */
  get(ref: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | null>;
  /**
   * Stores a stream under key without holding it whole (overwriting) and returns its ref. The
   * stream failing (a size or hash check in a transform) fails the put; the caller then deletes.
   */
  putStream(key: string, body: ReadableStream<Uint8Array>, contentType: string): Promise<string>;
  /** The size in bytes of the object of ref, or null when it is absent. */
  size(ref: string): Promise<number | null>;
  /** Removes the one object of ref; absent is fine. */
  delete(ref: string): Promise<void>;
  /** Removes every object whose key starts with prefix. */
  deletePrefix(prefix: string): Promise<void>;
  /** Keys under prefix (tests and maintenance). */
  list(prefix: string): Promise<string[]>;
}

/** Deleting by prefix always targets one drop or batch folder: an empty prefix would be everything. */
export function assertScopedPrefix(prefix: string): void {
  if (!prefix.includes("/") || prefix.startsWith("/"))
    throw new Error(`refusing to delete unscoped storage prefix ${JSON.stringify(prefix)}`);
}

/** Passes bytes start..end (inclusive) of a stream through and drops the rest. */
export function sliceStream(start: number, end: number): TransformStream<Uint8Array, Uint8Array> {
  let offset = 0;
  return new TransformStream({
    transform(chunk, controller) {
      const from = Math.max(start - offset, 0);
      const to = Math.min(end + 1 - offset, chunk.byteLength);
      offset += chunk.byteLength;
      if (to > from) controller.enqueue(chunk.subarray(from, to));
      if (offset > end) controller.terminate();
    },
  });
}
