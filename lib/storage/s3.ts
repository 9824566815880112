import type { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ServiceException,
  UploadPartCommand,
  type CompletedPart,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { mapLimit } from "../concurrency";
import { assertScopedPrefix, sliceStream, type ByteRange, type DirectUploads, type Storage } from "./types";
import { webStreamOf } from "./node-stream";

// Any S3-compatible bucket (AWS S3, Cloudflare R2, MinIO, Garage) through the AWS SDK. The ref
// the database records is the object key. Reads are ranged GETs streamed through; deletes by
// prefix go in DeleteObjects batches; clients upload large contents straight to the bucket by
// presigned PUT, with the size and the SHA-256 checksum signed (a store that checks them refuses
// other bytes; the app reads every direct upload back before any file uses it, for the stores
// that do not). Every SDK or network failure is thrown; callers answer 503, and the app's
// context wraps the store in lib/storage/guard.ts, so a bucket that cannot be reached fails fast.

export interface S3StorageOptions {
  bucket: string;
  /** The S3 API endpoint (R2, MinIO, Garage); absent, AWS's for the region. */
  endpoint?: string;
  region?: string;
  /** Absent: the SDK's default credential chain (environment, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Bucket in the path (http://host/bucket/key), as MinIO and most self-hosted stores need. */
  forcePathStyle?: boolean;
  /** Streams larger than this go up in parts of this size (S3's minimum part is 5 MB). */
  partBytes?: number;
  /** Keys per DeleteObjects request (S3 allows 1000). */
  deleteBatchSize?: number;
  /** Attempts per request (the SDK's retry strategy); default 3. */
  maxAttempts?: number;
}

const CONNECT_TIMEOUT_MS = 2_000;
const IDLE_TIMEOUT_MS = 10_000;
const MAX_SOCKETS = 256;

/** Presigned URLs may live at most 7 days (SigV4). */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

export class S3Storage implements Storage {
  readonly kind = "s3";
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly partBytes: number;
  private readonly deleteBatchSize: number;

  constructor(opts: S3StorageOptions) {
    this.bucket = opts.bucket;
    this.partBytes = Math.max(opts.partBytes ?? 8 * 1024 * 1024, 5 * 1024 * 1024);
    this.deleteBatchSize = opts.deleteBatchSize ?? 1000;
    this.client = new S3Client({
      endpoint: opts.endpoint,
      region: opts.region ?? "us-east-1",
      credentials: opts.credentials,
      forcePathStyle: opts.forcePathStyle ?? false,
      maxAttempts: opts.maxAttempts ?? 3,
      // Checksums only where the API requires them: several S3-compatible stores refuse the
      // SDK's default CRC32 trailers, and every content is checked by SHA-256 by the app anyway.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      // A store that stops answering must not hold requests (the SDK sets no timeout): 2 s to
      // connect, 10 s without a byte on an open socket (a dead keep-alive connection); then the
      // call fails, and lib/storage/guard.ts fails the next calls fast (503). The SDK's
      // requestTimeout only logs unless told to throw, and a long upload may rightly take longer.
      // Sockets: up to 256 (the SDK's default is 50), because a request waiting in the agent's
      // queue counts against its connect timeout, and a busy moment must not look like an outage.
      requestHandler: {
        connectionTimeout: CONNECT_TIMEOUT_MS,
        socketTimeout: IDLE_TIMEOUT_MS,
        httpAgent: { keepAlive: true, maxSockets: MAX_SOCKETS },
        httpsAgent: { keepAlive: true, maxSockets: MAX_SOCKETS },
      },
    });
  }

  readonly direct: DirectUploads = {
    target: async (key, size, validUntil, sha256) => {
      const checksum = Buffer.from(sha256, "hex").toString("base64");
      const expiresIn = Math.min(
        MAX_PRESIGN_SECONDS,
        Math.max(1, Math.floor((validUntil.getTime() - Date.now()) / 1000)),
      );
      const url = await getSignedUrl(
        this.client,
        new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentLength: size, ChecksumSHA256: checksum }),
        {
          expiresIn,
          // Signed headers, not query parameters: the client must send exactly this length and
          // checksum, and the store checks the body against the checksum.
          signableHeaders: new Set(["content-length", "x-amz-checksum-sha256"]),
          unhoistableHeaders: new Set(["x-amz-checksum-sha256"]),
        },
      );
      // Content-Length is sent by every HTTP client from the body (browsers refuse to set it).
      return { url, method: "PUT", headers: { "x-amz-checksum-sha256": checksum } };
    },
    stat: async (key) => {
      const size = await this.size(key);
      return size === null ? null : { ref: key, size };
    },
  };

  async put(key: string, bytes: Uint8Array, contentType: string, sha256?: string): Promise<string> {
    const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: key,
      Body: body,
      ContentLength: body.byteLength,
      ContentType: contentType,
    });
    // SigV4 signs the body's SHA-256 (x-amz-content-sha256), which the SDK otherwise computes
    // by hashing the body again on the event loop (a deploy had hashed every content already).
    // The header set before signing is the one signed; the store checks the body against it.
    if (sha256 && /^[0-9a-f]{64}$/.test(sha256))
      command.middlewareStack.add(
        (next) => (args) => {
          const request = args.request as { headers?: Record<string, string> };
          if (request.headers) request.headers["x-amz-content-sha256"] = sha256;
          return next(args);
        },
        { step: "build", name: "knownPayloadSha256" },
      );
    await this.client.send(command);
    return key;
  }

  async putStream(key: string, body: ReadableStream<Uint8Array>, contentType: string): Promise<string> {
    // Parts of partBytes, one at a time: a stream shorter than one part is a plain PUT; a longer
    // one a multipart upload, aborted when the stream or a part fails (nothing is left behind).
    const reader = body.getReader();
    let carry: Uint8Array | undefined;
    const readPart = async (): Promise<{ bytes: Buffer; done: boolean }> => {
      const chunks: Uint8Array[] = carry ? [carry] : [];
      let n = carry?.byteLength ?? 0;
      carry = undefined;
      while (n < this.partBytes) {
        const { done, value } = await reader.read();
        if (done) return { bytes: Buffer.concat(chunks, n), done: true };
        chunks.push(value);
        n += value.byteLength;
      }
      const joined = Buffer.concat(chunks, n);
      // The last chunk ran past the part: what is over starts the next one.
      if (n > this.partBytes) carry = joined.subarray(this.partBytes);
      return { bytes: joined.subarray(0, this.partBytes), done: false };
    };
    let part = await readPart();
    if (part.done) return this.put(key, part.bytes, contentType);
    const { UploadId } = await this.client.send(
      new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }),
    );
    const parts: CompletedPart[] = [];
    try {
      for (let n = 1; ; n++) {
        const { ETag } = await this.client.send(
          new UploadPartCommand({
            Bucket: this.bucket,
            Key: key,
            UploadId,
            PartNumber: n,
            Body: part.bytes,
            ContentLength: part.bytes.byteLength,
          }),
        );
        parts.push({ ETag, PartNumber: n });
        if (part.done) break;
        part = await readPart();
        if (part.done && part.bytes.byteLength === 0) break;
      }
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    } catch (err) {
      void reader.cancel().catch(() => undefined);
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId }))
        .catch(() => undefined);
      throw err;
    }
    return key;
  }

  async get(ref: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | null> {
    try {
      const res = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: ref,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      const body = res.Body as Readable | undefined;
      if (!body) return new ReadableStream<Uint8Array>({ start: (c) => c.close() });
      const stream = webStreamOf(body);
      // A store may answer a Range with more than it (s3rver answers bytes=0-0 whole): cut it out here.
      if (range && !res.ContentRange?.startsWith(`bytes ${range.start}-${range.end}/`))
        return stream.pipeThrough(sliceStream(range.start, range.end));
      return stream;
    } catch (err) {
      // NoSuchKey only: a missing bucket (NoSuchBucket, also 404) is a configuration fault, thrown.
      if ((err as { name?: unknown } | null)?.name === "NoSuchKey") return null;
      // An empty object has no byte 0: S3 answers 416 to any range of it.
      if (range && statusOf(err) === 416) return new ReadableStream<Uint8Array>({ start: (c) => c.close() });
      throw err;
    }
  }

  async size(ref: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: ref }));
      return head.ContentLength ?? 0;
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(ref: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: ref }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertScopedPrefix(prefix);
    // Collect first, then delete: deleting while paging could shift what the token points at.
    const keys = await this.list(prefix);
    const batches: string[][] = [];
    for (let i = 0; i < keys.length; i += this.deleteBatchSize) batches.push(keys.slice(i, i + this.deleteBatchSize));
    await mapLimit(batches, 4, async (batch) => {
      const res = await this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
        }),
      );
      const failed = res.Errors ?? [];
      if (failed.length > 0)
        throw new Error(
          `S3 DeleteObjects failed for ${failed.length} keys (first: ${failed[0]?.Key}: ${failed[0]?.Code})`,
        );
    });
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) if (o.Key !== undefined) out.push(o.Key);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  }
}

/** The HTTP status of an S3 service error (read by shape: Next may load the SDK more than once, so instanceof could fail). */
function statusOf(err: unknown): number | undefined {
  return (err as Partial<Pick<S3ServiceException, "$metadata">> | null)?.$metadata?.httpStatusCode;
}

function isNotFound(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === "NoSuchKey" || name === "NotFound" || statusOf(err) === 404;
}
