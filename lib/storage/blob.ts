import { BlobNotFoundError, del, head, list, put } from "@vercel/blob";
import { generateClientTokenFromReadWriteToken } from "@vercel/blob/client";
import { mapLimit } from "../concurrency";
import { assertScopedPrefix, sliceStream, type ByteRange, type DirectUploads, type Storage } from "./types";

// Vercel Blob (production). Objects are public blobs named by their key, without a random suffix,
// so a key always maps to the same URL, which is the ref the database records. Reads are a plain
// fetch of that URL: public blobs need no token, and the token is never sent to a URL that came
// out of the database. Every SDK or network failure is thrown; callers answer 503.
// The SDK takes its API base from VERCEL_BLOB_API_URL and its retry count from VERCEL_BLOB_RETRIES.

export interface BlobStorageOptions {
  /** Bodies larger than this go up in 8 MB parts (multipart upload). */
  multipartThresholdBytes?: number;
  /** URLs per delete request. */
  deleteBatchSize?: number;
  /** The Blob API base that direct upload targets point at (VERCEL_BLOB_API_URL); default Vercel's. */
  apiUrl?: string;
}

/** The Blob API version @vercel/blob 2.x sends (x-api-version); direct targets send the same. */
const BLOB_API_VERSION = "12";
const DEFAULT_API_URL = "https://vercel.com/api/blob";

const LIST_PAGE = 1000;

export class BlobStorage implements Storage {
  readonly kind = "blob";
  private readonly multipartThreshold: number;
  private readonly deleteBatchSize: number;
  private readonly apiUrl: string;

  constructor(
    private readonly token: string,
    opts: BlobStorageOptions = {},
  ) {
    this.multipartThreshold = opts.multipartThresholdBytes ?? 8 * 1024 * 1024;
    this.deleteBatchSize = opts.deleteBatchSize ?? 1000;
    this.apiUrl = (opts.apiUrl ?? DEFAULT_API_URL).replace(/\/+$/, "");
  }

  // Client uploads: a client token signed with the read-write token, bound to one pathname and
  // size, no overwrite, no random suffix; the target is the SDK's own PUT request, written out
  // so that curl or a browser can send it as it is.
  readonly direct: DirectUploads = {
    target: async (key, size, validUntil) => {
      const clientToken = await generateClientTokenFromReadWriteToken({
        token: this.token,
        pathname: key,
        maximumSizeInBytes: size,
        validUntil: validUntil.getTime(),
        allowOverwrite: false,
        addRandomSuffix: false,
      });
      const storeId = this.token.split("_")[3] ?? "";
      return {
        url: `${this.apiUrl}/?${new URLSearchParams({ pathname: key }).toString()}`,
        method: "PUT",
        headers: {
          authorization: `Bearer ${clientToken}`,
          "x-api-version": BLOB_API_VERSION,
          "x-vercel-blob-store-id": storeId,
          "x-vercel-blob-access": "public",
          "x-content-type": "application/octet-stream",
        },
      };
    },
    stat: async (key) => {
      try {
        const found = await head(key, { token: this.token });
        return { ref: found.url, size: found.size };
      } catch (err) {
        if (err instanceof BlobNotFoundError) return null;
        throw err;
      }
    },
  };

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<string> {
    // A Buffer view, not a plain Uint8Array: the SDK's multipart path only recognises Buffers,
    // and would otherwise upload the text "1,2,3,…".
    const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return this.send(key, body, contentType, bytes.byteLength > this.multipartThreshold);
  }

  async putStream(key: string, body: ReadableStream<Uint8Array>, contentType: string): Promise<string> {
    // Multipart: the SDK sends the stream in parts and never holds it whole.
    return this.send(key, body, contentType, true);
  }

  /** One public object at `key` (overwritten if present, never renamed); its URL is the storage ref. */
  private async send(
    key: string,
    body: Buffer | ReadableStream<Uint8Array>,
    contentType: string,
    multipart: boolean,
  ): Promise<string> {
    const result = await put(key, body, {
      access: "public",
      token: this.token,
      contentType,
      addRandomSuffix: false,
      allowOverwrite: true,
      multipart,
    });
    return result.url;
  }

  async size(ref: string): Promise<number | null> {
    try {
      return (await head(ref, { token: this.token })).size;
    } catch (err) {
      if (err instanceof BlobNotFoundError) return null;
      throw err;
    }
  }

  async delete(ref: string): Promise<void> {
    await del(ref, { token: this.token });
  }

  async get(ref: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | null> {
    const headers: Record<string, string> = range ? { range: `bytes=${range.start}-${range.end}` } : {};
    // no-store: Next's fetch must not put file bytes into its data cache.
    const res = await fetch(ref, { headers, cache: "no-store" });
    // Bodies are cancelled without waiting: under Next a fetch body may be one branch of a tee,
    // whose cancel settles only when the other branch is cancelled as well.
    if (res.status === 404) {
      void res.body?.cancel().catch(() => undefined);
      return null;
    }
    if (!res.ok) {
      void res.body?.cancel().catch(() => undefined);
      throw new Error(`Vercel Blob read failed: ${res.status} ${res.statusText}`);
    }
    const body = res.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
    // A server may answer a Range with the whole body (200): cut the range out here.
    if (range && res.status === 200) return body.pipeThrough(sliceStream(range.start, range.end));
    return body;
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertScopedPrefix(prefix);
    // Collect first, then delete: deleting while paging could shift what the cursor points at.
    const urls = (await this.listAll(prefix)).map((b) => b.url);
    const batches: string[][] = [];
    for (let i = 0; i < urls.length; i += this.deleteBatchSize) batches.push(urls.slice(i, i + this.deleteBatchSize));
    await mapLimit(batches, 4, (batch) => del(batch, { token: this.token }));
  }

  async list(prefix: string): Promise<string[]> {
    return (await this.listAll(prefix)).map((b) => b.pathname).sort();
  }

  private async listAll(prefix: string): Promise<Array<{ url: string; pathname: string }>> {
    const out: Array<{ url: string; pathname: string }> = [];
    let cursor: string | undefined;
    do {
      const page = await list({ prefix, cursor, limit: LIST_PAGE, token: this.token });
      for (const b of page.blobs) out.push({ url: b.url, pathname: b.pathname });
      cursor = page.hasMore ? page.cursor : undefined;
    } while (cursor);
    return out;
  }
}
