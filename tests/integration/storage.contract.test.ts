import { createHash, createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BlobStorage } from "@/lib/storage/blob";
import { FsStorage } from "@/lib/storage/fs";
import { GuardedStorage, isUnreachable } from "@/lib/storage/guard";
import { ApiError } from "@/lib/errors";
import { S3Storage } from "@/lib/storage/s3";
import { createContext } from "@/lib/context";
import { parseEnv } from "@/lib/env";
import { mapLimit } from "@/lib/concurrency";
import type { Storage } from "@/lib/storage/types";
import { startBlobStandin, type BlobStandin } from "../support/blob-standin";
import { freePort } from "../support/pg-server";
import { startS3Server, type S3Server } from "../support/s3-server";

// The Storage contract, run against the embedded filesystem store and the Vercel Blob adapter
// (the real @vercel/blob SDK talking to a local stand-in of the Blob API) and the S3 adapter (the
// AWS SDK talking to a real S3 API server on loopback, s3rver).

async function readAll(stream: ReadableStream<Uint8Array> | null): Promise<Buffer | null> {
  if (!stream) return null;
  const chunks: Uint8Array[] = [];
  for await (const c of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** Deterministic bytes covering every byte value, so encoding mistakes show. */
function binary(size: number, seed = 7): Buffer {
  const b = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = i < 256 ? i : x >>> 24;
  }
  return b;
}

const MB = 1024 * 1024;

interface Subject {
  storage: Storage;
  /** The Blob stand-in behind the storage, when there is one. */
  standin?: BlobStandin;
}

let blobStandin: BlobStandin;
let s3: S3Server;
let fsRoot: string;

function s3Storage(opts: Partial<ConstructorParameters<typeof S3Storage>[0]> = {}): S3Storage {
  return new S3Storage({
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
    forcePathStyle: true,
    ...opts,
  });
}

beforeAll(async () => {
  [blobStandin, s3] = await Promise.all([startBlobStandin(), startS3Server()]);
  // The SDK reads these itself; no retries, so failures surface at once.
  process.env.VERCEL_BLOB_API_URL = blobStandin.apiUrl;
  process.env.VERCEL_BLOB_RETRIES = "0";
  fsRoot = await mkdtemp(path.join(tmpdir(), "dropsite-storage-"));
});

afterAll(async () => {
  await blobStandin?.close();
  await s3?.close();
  if (fsRoot) await rm(fsRoot, { recursive: true, force: true });
});

const implementations: Array<{ name: string; make: () => Subject }> = [
  { name: "FsStorage", make: () => ({ storage: new FsStorage(fsRoot) }) },
  { name: "BlobStorage", make: () => ({ storage: new BlobStorage(blobStandin.token), standin: blobStandin }) },
  { name: "S3Storage", make: () => ({ storage: s3Storage() }) },
];

describe.each(implementations)("Storage contract: $name", ({ make }) => {
  let storage: Storage;
  let standin: BlobStandin | undefined;
  /** A fresh key prefix per test: the store is shared by the tests of one implementation. */
  let root: string;

  beforeEach(() => {
    ({ storage, standin } = make());
    standin?.reset();
    root = `drop-${randomBytes(6).toString("hex")}`;
  });

  it("returns the exact bytes that were put, every byte value included", async () => {
    const bytes = binary(70_000);
    const ref = await storage.put(`${root}/bin/data.bin`, bytes, "application/octet-stream");
    expect(typeof ref).toBe("string");
    const got = await readAll(await storage.get(ref));
    expect(got?.equals(bytes)).toBe(true);
  });

  it("answers the size of a stored object, 0 for an empty one, null for an absent one, the new size after an overwrite", async () => {
    const ref = await storage.put(`${root}/sized.bin`, new Uint8Array(1234), "application/octet-stream");
    expect(await storage.size(ref)).toBe(1234);
    expect(
      await storage.size(await storage.put(`${root}/sized-empty.bin`, new Uint8Array(0), "application/octet-stream")),
    ).toBe(0);
    await storage.put(`${root}/sized.bin`, new Uint8Array(1310), "application/octet-stream");
    expect(await storage.size(ref)).toBe(1310);
    await storage.delete(ref);
    expect(await storage.size(ref)).toBeNull();
  });

  it("stores an empty file and reads it back empty", async () => {
    const ref = await storage.put(`${root}/empty.txt`, new Uint8Array(0), "text/plain");
    const got = await readAll(await storage.get(ref));
    expect(got).not.toBeNull();
    expect(got?.length).toBe(0);
  });

  it("accepts a plain Uint8Array view into a larger buffer", async () => {
    const backing = binary(1000);
    const view = new Uint8Array(backing.buffer, backing.byteOffset + 100, 300);
    const ref = await storage.put(`${root}/view.bin`, view, "application/octet-stream");
    expect((await readAll(await storage.get(ref)))?.equals(backing.subarray(100, 400))).toBe(true);
  });

  it("keeps keys with spaces, unicode and URL-special characters apart", async () => {
    const keys = [
      `${root}/dir/héllo wörld (1).txt`,
      `${root}/dir/a+b&c=d.html`,
      `${root}/dir/100%.css`,
      `${root}/dir/q?x#y.js`,
    ];
    const refs = await Promise.all(keys.map((k, i) => storage.put(k, Buffer.from(`content ${i}`), "text/plain")));
    for (const [i, ref] of refs.entries())
      expect((await readAll(await storage.get(ref)))?.toString()).toBe(`content ${i}`);
    expect(await storage.list(`${root}/dir/`)).toEqual([...keys].sort());
  });

  describe("byte ranges (inclusive)", () => {
    const bytes = binary(10_000, 3);
    let ref: string;
    beforeEach(async () => {
      ref = await storage.put(`${root}/media.bin`, bytes, "video/mp4");
    });

    it.each([
      { start: 0, end: 0 },
      { start: 0, end: 9_999 },
      { start: 1_234, end: 5_678 },
      { start: 9_999, end: 9_999 },
      { start: 9_000, end: 9_999 },
    ])("bytes $start-$end", async (range) => {
      const got = await readAll(await storage.get(ref, range));
      expect(got?.equals(bytes.subarray(range.start, range.end + 1))).toBe(true);
    });
  });

  it("overwrites a key: the same ref then reads the new bytes", async () => {
    const key = `${root}/index.html`;
    const ref1 = await storage.put(key, Buffer.from("<h1>old</h1>"), "text/html");
    const ref2 = await storage.put(key, Buffer.from("<h1>new, and longer</h1>"), "text/html");
    expect(ref2).toBe(ref1);
    expect((await readAll(await storage.get(ref1)))?.toString()).toBe("<h1>new, and longer</h1>");
    expect(await storage.list(`${root}/`)).toEqual([key]);
  });

  it("putStream stores a stream's bytes; a stream that fails stores nothing", async () => {
    const bytes = binary(3 * 100_000 + 17);
    const chunks = [bytes.subarray(0, 100_000), bytes.subarray(100_000, 250_000), bytes.subarray(250_000)];
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        const next = chunks.shift();
        if (next) c.enqueue(new Uint8Array(next));
        else c.close();
      },
    });
    const ref = await storage.putStream(`${root}/streamed.bin`, stream, "application/octet-stream");
    expect((await readAll(await storage.get(ref)))?.equals(bytes)).toBe(true);
    const failing = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array(binary(1000)));
        c.error(new Error("hash mismatch"));
      },
    });
    await expect(storage.putStream(`${root}/failed.bin`, failing, "application/octet-stream")).rejects.toThrow();
    expect(await storage.list(`${root}/`)).toEqual([`${root}/streamed.bin`]);
  });

  it("delete removes one object by its ref and leaves its neighbours; deleting it again is fine", async () => {
    const gone = await storage.put(`${root}/a.txt`, Buffer.from("a"), "text/plain");
    const kept = await storage.put(`${root}/ab.txt`, Buffer.from("ab"), "text/plain");
    await storage.delete(gone);
    await storage.delete(gone);
    expect(await storage.get(gone)).toBeNull();
    expect((await readAll(await storage.get(kept)))?.toString()).toBe("ab");
    expect(await storage.list(`${root}/`)).toEqual([`${root}/ab.txt`]);
  });

  it("answers null for a ref that was never put, and for one that was deleted", async () => {
    const present = await storage.put(`${root}/present.txt`, Buffer.from("here"), "text/plain");
    const absent = present.replace("present.txt", "absent.txt");
    expect(absent).not.toBe(present);
    expect(await storage.get(absent)).toBeNull();
    expect(await storage.get(absent, { start: 0, end: 1 })).toBeNull();
    await storage.deletePrefix(`${root}/`);
    expect(await storage.get(present)).toBeNull();
  });

  it("deletePrefix removes every key under the prefix and nothing else", async () => {
    const doomed = [`${root}/a/index.html`, `${root}/a/sub/deep/x.js`, `${root}/a/y.css`];
    const kept = [`${root}/ab/z.txt`, `${root}/b/index.html`, `${root}/a.txt`];
    const refs = new Map<string, string>();
    for (const k of [...doomed, ...kept]) refs.set(k, await storage.put(k, Buffer.from(k), "text/plain"));
    await storage.deletePrefix(`${root}/a/`);
    expect(await storage.list(`${root}/`)).toEqual([...kept].sort());
    for (const k of doomed) expect(await storage.get(refs.get(k) as string)).toBeNull();
    for (const k of kept) expect((await readAll(await storage.get(refs.get(k) as string)))?.toString()).toBe(k);
  });

  it("deletePrefix of a prefix with no keys succeeds and changes nothing", async () => {
    await storage.put(`${root}/keep.txt`, Buffer.from("k"), "text/plain");
    await storage.deletePrefix(`${root}/nothing-here/`);
    expect(await storage.list(`${root}/`)).toEqual([`${root}/keep.txt`]);
  });

  it("list returns the sorted keys under a prefix only", async () => {
    const keys = [`${root}/z.txt`, `${root}/a/b/c.txt`, `${root}/a/a.txt`, `${root}/m.txt`];
    for (const k of keys) await storage.put(k, Buffer.from("x"), "text/plain");
    await storage.put(`${root}-sibling/not-mine.txt`, Buffer.from("x"), "text/plain");
    expect(await storage.list(`${root}/`)).toEqual([...keys].sort());
    expect(await storage.list(`${root}/a/`)).toEqual([`${root}/a/a.txt`, `${root}/a/b/c.txt`]);
    expect(await storage.list(`${root}/nope/`)).toEqual([]);
  });

  it("stores a file over 8 MB whole and serves a range across the 8 MB part boundary", async () => {
    const big = binary(9 * MB + 12_345, 11);
    const key = `${root}/video/big.mp4`;
    // A plain Uint8Array (as unzipping yields), not a Buffer.
    const ref = await storage.put(key, new Uint8Array(big.buffer, big.byteOffset, big.byteLength), "video/mp4");
    expect((await readAll(await storage.get(ref)))?.equals(big)).toBe(true);
    const range = { start: 8 * MB - 10, end: 8 * MB + 10 };
    expect((await readAll(await storage.get(ref, range)))?.equals(big.subarray(range.start, range.end + 1))).toBe(true);
    if (standin) {
      const kinds = standin.requests.filter((r) => r.pathname === key).map((r) => r.kind);
      expect(kinds).not.toContain("put");
      expect(kinds.filter((k) => k === "mpu-create")).toHaveLength(1);
      expect(kinds.filter((k) => k === "mpu-upload")).toHaveLength(2);
      expect(kinds.filter((k) => k === "mpu-complete")).toHaveLength(1);
    }
  });

  it("survives bounded parallel puts through mapLimit", async () => {
    if (standin) standin.options.latencyMs = 15;
    let inFlight = 0;
    let peak = 0;
    const files = Array.from({ length: 40 }, (_, i) => ({
      key: `${root}/many/f${String(i).padStart(2, "0")}.txt`,
      bytes: Buffer.from(`file ${i} `.repeat(i + 1)),
    }));
    const refs = await mapLimit(files, 4, async (f) => {
      peak = Math.max(peak, ++inFlight);
      try {
        return await storage.put(f.key, f.bytes, "text/plain");
      } finally {
        inFlight--;
      }
    });
    expect(peak).toBe(4);
    expect(await storage.list(`${root}/many/`)).toEqual(files.map((f) => f.key));
    for (const [i, ref] of refs.entries())
      expect((await readAll(await storage.get(ref)))?.equals(files[i]?.bytes as Buffer)).toBe(true);
    if (standin) {
      // What reached the service was bounded too, and really parallel.
      expect(standin.peakInFlight).toBeLessThanOrEqual(4);
      expect(standin.peakInFlight).toBeGreaterThan(1);
    }
  });
});

describe("BlobStorage specifics (Vercel Blob SDK against the stand-in)", () => {
  let storage: BlobStorage;
  beforeEach(() => {
    blobStandin.reset();
    storage = new BlobStorage(blobStandin.token);
  });
  const root = () => `blob-${randomBytes(6).toString("hex")}`;

  it("puts public, without a random suffix, overwriting, with the given content type; the ref is the blob URL", async () => {
    const key = `${root()}/styles/site.css`;
    const ref = await storage.put(key, Buffer.from("body{}"), "text/css; charset=utf-8");
    expect(ref).toBe(blobStandin.urlFor(key));
    const put = blobStandin.requests.find((r) => r.kind === "put");
    expect(put?.pathname).toBe(key);
    expect(put?.headers["x-vercel-blob-access"]).toBe("public");
    expect(put?.headers["x-add-random-suffix"]).toBe("0");
    expect(put?.headers["x-allow-overwrite"]).toBe("1");
    expect(put?.headers["x-content-type"]).toBe("text/css; charset=utf-8");
    expect(put?.headers.authorization).toBe(`Bearer ${blobStandin.token}`);
    expect(blobStandin.blobs.get(key)?.contentType).toBe("text/css; charset=utf-8");
  });

  it("reads with a plain GET carrying a Range header and no token", async () => {
    const key = `${root()}/a.bin`;
    const ref = await storage.put(key, binary(100), "application/octet-stream");
    blobStandin.reset();
    await readAll(await storage.get(ref, { start: 10, end: 19 }));
    const read = blobStandin.requests.find((r) => r.kind === "read");
    expect(read?.method).toBe("GET");
    expect(read?.headers.range).toBe("bytes=10-19");
    expect(read?.headers.authorization).toBeUndefined();
    expect(read?.status).toBe(206);
  });

  it("cuts the range out itself when the server ignores Range and answers 200", async () => {
    const bytes = binary(50_000, 5);
    const ref = await storage.put(`${root()}/r.bin`, bytes, "application/octet-stream");
    blobStandin.options.ignoreRange = true;
    const got = await readAll(await storage.get(ref, { start: 30_000, end: 40_000 }));
    expect(blobStandin.requests.at(-1)?.status).toBe(200);
    expect(got?.equals(bytes.subarray(30_000, 40_001))).toBe(true);
  });

  it("pages through list with the cursor and deletes in batches", async () => {
    const r = root();
    const keys = Array.from({ length: 23 }, (_, i) => `${r}/f${String(i).padStart(2, "0")}`);
    await mapLimit(keys, 8, (k) => storage.put(k, Buffer.from(k), "text/plain"));
    await storage.put(`${r}x/other`, Buffer.from("o"), "text/plain");
    blobStandin.options.maxListLimit = 5;
    const batched = new BlobStorage(blobStandin.token, { deleteBatchSize: 10 });

    expect(await batched.list(`${r}/`)).toEqual(keys);
    blobStandin.requests.length = 0;
    await batched.deletePrefix(`${r}/`);

    const lists = blobStandin.requests.filter((q) => q.kind === "list");
    expect(lists.length).toBe(5);
    expect(lists.slice(1).every((q) => new URL(q.url).searchParams.has("cursor"))).toBe(true);
    expect(lists.every((q) => new URL(q.url).searchParams.get("prefix") === `${r}/`)).toBe(true);
    const deletes = blobStandin.requests.filter((q) => q.kind === "delete");
    expect(deletes.length).toBe(3);
    expect(await batched.list(`${r}/`)).toEqual([]);
    expect(await batched.list(`${r}x/`)).toEqual([`${r}x/other`]);
  });

  it("throws when the service fails a put, a list or a delete", async () => {
    blobStandin.failNext({ status: 503, code: "service_unavailable" });
    await expect(storage.put(`${root()}/x`, Buffer.from("x"), "text/plain")).rejects.toThrow(/not available/);
    blobStandin.failNext({ status: 500, code: "internal_server_error", when: (q) => q.kind === "list" });
    await expect(storage.list("")).rejects.toThrow();
    const r = root();
    await storage.put(`${r}/y`, Buffer.from("y"), "text/plain");
    blobStandin.failNext({ status: 429, code: "rate_limited", when: (q) => q.kind === "delete" });
    await expect(storage.deletePrefix(`${r}/`)).rejects.toThrow(/Too many requests/);
    expect(await storage.list(`${r}/`)).toEqual([`${r}/y`]);
  });

  it("throws when a multipart part fails", async () => {
    blobStandin.failNext({ status: 500, code: "unknown_error", when: (q) => q.kind === "mpu-upload" });
    await expect(storage.put(`${root()}/big.bin`, binary(9 * MB), "application/octet-stream")).rejects.toThrow();
  });

  it("throws when a read fails with anything but 404", async () => {
    const ref = await storage.put(`${root()}/z`, Buffer.from("z"), "text/plain");
    blobStandin.failNext({ status: 502, code: "bad_gateway", when: (q) => q.kind === "read" });
    await expect(storage.get(ref)).rejects.toThrow(/502/);
  });

  it("throws with a wrong token", async () => {
    const wrong = new BlobStorage(blobStandin.token.replace(/_[^_]+$/, "_wrongsecret"));
    await expect(wrong.put(`${root()}/w`, Buffer.from("w"), "text/plain")).rejects.toThrow(/Access denied/);
  });

  it("throws when the service cannot be reached", async () => {
    const closedPort = await freePort();
    const saved = process.env.VERCEL_BLOB_API_URL;
    process.env.VERCEL_BLOB_API_URL = `http://127.0.0.1:${closedPort}/api/blob`;
    try {
      await expect(storage.put(`${root()}/n`, Buffer.from("n"), "text/plain")).rejects.toThrow();
      await expect(storage.list("")).rejects.toThrow();
    } finally {
      process.env.VERCEL_BLOB_API_URL = saved;
    }
    await expect(storage.get(`http://127.0.0.1:${closedPort}/public/x`)).rejects.toThrow();
  });
});

/**
 * Checks a presigned URL's SigV4 signature (query-string form) for a request carrying `headers`,
 * as S3 does before it accepts the request: true only when every signed header has the value
 * that was signed.
 */
function sigV4Accepts(target: string, headers: Record<string, string>, secretAccessKey: string): boolean {
  const url = new URL(target);
  const q = url.searchParams;
  const enc = (s: string) =>
    encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const query = [...q]
    .filter(([k]) => k !== "X-Amz-Signature")
    .map(([k, v]) => [enc(k), enc(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const signed = (q.get("X-Amz-SignedHeaders") ?? "").split(";");
  const all: Record<string, string> = {
    host: url.host,
    ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
  };
  const canonicalHeaders = signed.map((h) => `${h}:${(all[h] ?? "").trim()}\n`).join("");
  const canonical = [
    "PUT",
    url.pathname,
    query,
    canonicalHeaders,
    signed.join(";"),
    q.get("X-Amz-Content-Sha256") ?? "UNSIGNED-PAYLOAD",
  ].join("\n");
  const [, date, region, service] = (q.get("X-Amz-Credential") ?? "").split("/");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = [
    "AWS4-HMAC-SHA256",
    q.get("X-Amz-Date"),
    scope,
    createHash("sha256").update(canonical).digest("hex"),
  ].join("\n");
  let key: Buffer = Buffer.from(`AWS4${secretAccessKey}`);
  for (const part of [date!, region!, service!, "aws4_request"]) key = createHmac("sha256", key).update(part).digest();
  return createHmac("sha256", key).update(toSign).digest("hex") === q.get("X-Amz-Signature");
}

describe("S3Storage specifics (AWS SDK against s3rver)", () => {
  const root = () => `s3-${randomBytes(6).toString("hex")}`;

  it("streams a body of several parts as a multipart upload; a stream failing mid-way leaves nothing behind", async () => {
    const storage = s3Storage({ partBytes: 5 * MB });
    const big = binary(11 * MB + 777, 13);
    const r = root();
    const chunked = (bytes: Buffer, fail = false) => {
      let at = 0;
      return new ReadableStream<Uint8Array>({
        pull(c) {
          if (fail && at > 6 * MB) return c.error(new Error("hash mismatch"));
          if (at >= bytes.length) return c.close();
          const n = 300_001; // chunks that straddle part boundaries
          c.enqueue(new Uint8Array(bytes.subarray(at, at + n)));
          at += n;
        },
      });
    };
    const ref = await storage.putStream(`${r}/big.bin`, chunked(big), "application/octet-stream");
    expect(await storage.size(ref)).toBe(big.length);
    expect((await readAll(await storage.get(ref)))?.equals(big)).toBe(true);
    const range = { start: 5 * MB - 3, end: 10 * MB + 3 };
    expect((await readAll(await storage.get(ref, range)))?.equals(big.subarray(range.start, range.end + 1))).toBe(true);
    await expect(storage.putStream(`${r}/failed.bin`, chunked(big, true), "application/octet-stream")).rejects.toThrow(
      /hash mismatch/,
    );
    expect(await storage.list(`${r}/`)).toEqual([`${r}/big.bin`]);
  });

  it("signs a put with the SHA-256 its caller already has (no second hash of the body), else the SDK's own", async () => {
    // A loopback proxy in front of s3rver records each PUT's signed payload hash.
    const seen: Array<{ url: string; sha: string | undefined; signed: string }> = [];
    const target = new URL(s3.endpoint);
    const proxy = http.createServer((req, res) => {
      seen.push({
        url: req.url ?? "",
        sha: req.headers["x-amz-content-sha256"] as string | undefined,
        signed: /SignedHeaders=([^,]+)/.exec(req.headers.authorization ?? "")?.[1] ?? "",
      });
      const out = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      req.pipe(out);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    try {
      const storage = s3Storage({ endpoint: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` });
      const r = root();
      const bytes = binary(70_000, 5);
      const sha = createHash("sha256").update(bytes).digest("hex");
      const given = createHash("sha256").update("a hash the SDK would never compute for these bytes").digest("hex");
      await storage.put(`${r}/given`, bytes, "application/octet-stream", given);
      await storage.put(`${r}/own`, bytes, "application/octet-stream");
      await storage.put(`${r}/malformed`, bytes, "application/octet-stream", "not-a-sha256");
      const put = (key: string) => seen.find((s) => s.url.split("?")[0]!.endsWith(`/${r}/${key}`))!;
      expect(put("given").sha).toBe(given);
      expect(put("given").signed.split(";")).toContain("x-amz-content-sha256");
      expect(put("own").sha).toBe(sha);
      expect(put("malformed").sha).toBe(sha);
      for (const key of ["given", "own", "malformed"])
        expect((await readAll(await storage.get(`${r}/${key}`)))?.equals(bytes)).toBe(true);
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });

  it("deletes by prefix in DeleteObjects batches, and nothing outside the prefix", async () => {
    const storage = s3Storage({ deleteBatchSize: 10 });
    const r = root();
    const keys = Array.from({ length: 23 }, (_, i) => `${r}/f${String(i).padStart(2, "0")}`);
    await mapLimit(keys, 8, (k) => storage.put(k, Buffer.from(k), "text/plain"));
    await storage.put(`${r}x/other`, Buffer.from("o"), "text/plain");
    expect(await storage.list(`${r}/`)).toEqual(keys);
    await storage.deletePrefix(`${r}/`);
    expect(await storage.list(`${r}/`)).toEqual([]);
    expect(await storage.list(`${r}x/`)).toEqual([`${r}x/other`]);
  });

  it(
    "pages a listing of more than 1,000 keys (ListObjectsV2 continuation tokens) and deletes them all",
    { timeout: 120_000 },
    async () => {
      const storage = s3Storage();
      const r = root();
      const keys = Array.from({ length: 1_005 }, (_, i) => `${r}/k${String(i).padStart(4, "0")}`);
      await mapLimit(keys, 16, (k) => storage.put(k, Buffer.from("k"), "text/plain"));
      expect(await storage.list(`${r}/`)).toEqual(keys);
      await storage.deletePrefix(`${r}/`);
      expect(await storage.list(`${r}/`)).toEqual([]);
    },
  );

  it("hands out a presigned PUT whose signature binds the size and the SHA-256; the bytes sent through it read back", async () => {
    const storage = s3Storage();
    const bytes = binary(6 * MB + 5, 17);
    const sha = createHash("sha256").update(bytes).digest();
    const key = `${root()}/c/direct`;
    const target = await storage.direct.target(key, bytes.length, new Date(Date.now() + 600_000), sha.toString("hex"));
    expect(target.method).toBe("PUT");
    expect(target.headers["x-amz-checksum-sha256"]).toBe(sha.toString("base64"));
    const url = new URL(target.url);
    expect(url.searchParams.get("X-Amz-SignedHeaders")?.split(";")).toEqual([
      "content-length",
      "host",
      "x-amz-checksum-sha256",
    ]);
    expect(Number(url.searchParams.get("X-Amz-Expires"))).toBeGreaterThan(590);
    expect(url.searchParams.has("x-amz-checksum-sha256")).toBe(false);
    // What a store that checks signatures (every S3) accepts: exactly these headers.
    const sent = { "content-length": String(bytes.length), ...target.headers };
    expect(sigV4Accepts(target.url, sent, s3.secretAccessKey)).toBe(true);
    expect(sigV4Accepts(target.url, { ...sent, "content-length": String(bytes.length + 1) }, s3.secretAccessKey)).toBe(
      false,
    );
    const otherSha = createHash("sha256").update("other bytes").digest("base64");
    expect(sigV4Accepts(target.url, { ...sent, "x-amz-checksum-sha256": otherSha }, s3.secretAccessKey)).toBe(false);
    expect(sigV4Accepts(target.url, sent, "another-secret-key")).toBe(false);
    const res = await fetch(target.url, { method: "PUT", headers: target.headers, body: new Uint8Array(bytes) });
    expect(res.status).toBe(200);
    expect(await storage.direct.stat(key)).toEqual({ ref: key, size: bytes.length });
    expect(await storage.direct.stat(`${key}-absent`)).toBeNull();
    expect((await readAll(await storage.get(key)))?.equals(bytes)).toBe(true);
  });

  it("throws when the store cannot be reached, and works again once it is back", async () => {
    const storage = s3Storage({ maxAttempts: 1 });
    const ref = await storage.put(`${root()}/up.txt`, Buffer.from("up"), "text/plain");
    await s3.stop();
    try {
      await expect(storage.put(`${root()}/down.txt`, Buffer.from("x"), "text/plain")).rejects.toThrow();
      await expect(storage.get(ref)).rejects.toThrow();
      await expect(storage.size(ref)).rejects.toThrow();
      await expect(storage.list(`${root()}/`)).rejects.toThrow();
    } finally {
      await s3.start();
    }
    expect((await readAll(await storage.get(ref)))?.toString()).toBe("up");
  });

  it("throws on a bucket that does not exist (a configuration fault, not an absent object)", async () => {
    const storage = s3Storage({ bucket: "no-such-bucket", maxAttempts: 1 });
    await expect(storage.put(`${root()}/x`, Buffer.from("x"), "text/plain")).rejects.toThrow();
    await expect(storage.get(`${root()}/x`)).rejects.toThrow(/bucket/i);
    await expect(storage.list(`${root()}/`)).rejects.toThrow();
  });
});

/** The outcome of one call: its time, and the error's code, status and Retry-After when it failed. */
async function timed(
  call: () => Promise<unknown>,
): Promise<{ ms: number; code?: string; status?: number; retryAfter?: string; error?: unknown }> {
  const t0 = performance.now();
  try {
    await call();
    return { ms: performance.now() - t0 };
  } catch (error) {
    const ms = performance.now() - t0;
    if (!(error instanceof ApiError)) return { ms, error };
    return { ms, code: error.code, status: error.status, retryAfter: error.headers["Retry-After"] };
  }
}

describe("a store known down fails fast (lib/storage/guard.ts, against s3rver stopped and started)", () => {
  const root = () => `guard-${randomBytes(6).toString("hex")}`;
  const changes: boolean[] = [];
  const guarded = (downMs: number) =>
    new GuardedStorage(s3Storage(), { downMs, onChange: (down) => changes.push(down) });

  it("answers 503 with Retry-After at once while the bucket is down, writes nothing, and answers again once a probe does", async () => {
    changes.length = 0;
    const storage = guarded(400);
    const r = root();
    const before = await storage.put(`${r}/before.txt`, Buffer.from("before"), "text/plain");
    await s3.stop();
    let restarted = false;
    try {
      // The first call finds out (connection refused, after the SDK's retries); it is a 503 already.
      const first = await timed(() => storage.put(`${r}/during-1.txt`, Buffer.from("x"), "text/plain"));
      expect(first).toMatchObject({
        code: "upstream_unavailable",
        status: 503,
        retryAfter: expect.stringMatching(/^[1-9]\d*$/),
      });
      expect(storage.down).toBe(true);
      // Every call after it, of every kind, fails without waiting on the store.
      const calls: Array<() => Promise<unknown>> = [
        () => storage.put(`${r}/during-2.txt`, Buffer.from("x"), "text/plain"),
        () =>
          storage.putStream(
            `${r}/during-3.txt`,
            new ReadableStream({ start: (c) => (c.enqueue(new Uint8Array(10)), c.close()) }),
            "text/plain",
          ),
        () => storage.get(before),
        () => storage.get(before, { start: 0, end: 1 }),
        () => storage.size(before),
        () => storage.delete(before),
        () => storage.deletePrefix(`${r}/`),
        () => storage.list(`${r}/`),
        () => storage.direct!.stat(`${r}/before.txt`),
        () => storage.direct!.target(`${r}/direct`, 10, new Date(Date.now() + 60_000), "0".repeat(64)),
      ];
      for (const call of calls) {
        const out = await timed(call);
        expect(out).toMatchObject({
          code: "upstream_unavailable",
          status: 503,
          retryAfter: expect.stringMatching(/^[1-9]\d*$/),
        });
        // No connection attempt: well under the SDK's connect timeout (2 s) and its retries.
        expect(out.ms).toBeLessThan(250);
      }
      // Past the window one probe goes out; the bucket is still down, so the mark is renewed.
      await new Promise((res) => setTimeout(res, 450));
      const probing = timed(() => storage.size(before));
      // While that probe is out, other calls are refused at once as well.
      const meanwhile = await timed(() => storage.list(`${r}/`));
      expect(meanwhile).toMatchObject({ code: "upstream_unavailable", status: 503 });
      expect(meanwhile.ms).toBeLessThan(250);
      const probed = await probing;
      expect(probed).toMatchObject({ code: "upstream_unavailable", status: 503 });
      expect(storage.down).toBe(true);
      await s3.start();
      restarted = true;
      // Still inside the renewed window: refused without asking, although the bucket is back.
      expect(await timed(() => storage.size(before))).toMatchObject({ code: "upstream_unavailable" });
    } finally {
      if (!restarted) await s3.start();
    }
    await new Promise((res) => setTimeout(res, 450));
    // The probe answers: the call goes through, and the mark is gone.
    expect((await readAll(await storage.get(before)))?.toString()).toBe("before");
    expect(storage.down).toBe(false);
    expect(changes).toEqual([true, false]);
    // Nothing of what was refused reached the bucket; what was there before is intact.
    expect(await s3Storage().list(`${r}/`)).toEqual([`${r}/before.txt`]);
    await storage.put(`${r}/after.txt`, Buffer.from("after"), "text/plain");
    expect((await readAll(await s3Storage().get(`${r}/after.txt`)))?.toString()).toBe("after");
  });

  it("a failure that is an answer, or the caller's own body failing, marks nothing down", async () => {
    changes.length = 0;
    const storage = new GuardedStorage(s3Storage({ bucket: "no-such-bucket", maxAttempts: 1 }), {
      onChange: (down) => changes.push(down),
    });
    const missing = await timed(() => storage.put(`${root()}/x`, Buffer.from("x"), "text/plain"));
    expect(missing.error).toBeDefined();
    expect(missing.code).toBeUndefined();
    expect(storage.down).toBe(false);
    // A client that went away mid-upload fails its stream with ECONNRESET: that is not the store.
    const ok = guarded(400);
    const gone = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array(100));
        c.error(Object.assign(new Error("aborted"), { code: "ECONNRESET" }));
      },
    });
    const r = root();
    const out = await timed(() => ok.putStream(`${r}/gone.bin`, gone, "application/octet-stream"));
    expect((out.error as { code?: string } | undefined)?.code).toBe("ECONNRESET");
    expect(ok.down).toBe(false);
    expect(changes).toEqual([]);
    expect(await ok.list(`${r}/`)).toEqual([]);
  });

  it("guards Vercel Blob the same way: a service that cannot be reached is a 503 at once", async () => {
    const closedPort = await freePort();
    const saved = process.env.VERCEL_BLOB_API_URL;
    process.env.VERCEL_BLOB_API_URL = `http://127.0.0.1:${closedPort}/api/blob`;
    const storage = new GuardedStorage(new BlobStorage(blobStandin.token), {
      downMs: 60_000,
      onChange: () => undefined,
    });
    try {
      expect(await timed(() => storage.put(`${root()}/n`, Buffer.from("n"), "text/plain"))).toMatchObject({
        code: "upstream_unavailable",
        status: 503,
      });
      expect(storage.down).toBe(true);
      const again = await timed(() => storage.list(""));
      expect(again).toMatchObject({ code: "upstream_unavailable", status: 503 });
      expect(again.ms).toBeLessThan(250);
    } finally {
      process.env.VERCEL_BLOB_API_URL = saved;
    }
  });

  it("tells transport failures (anywhere in the cause chain) from answers", () => {
    expect(isUnreachable(Object.assign(new Error("connect"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(
      isUnreachable(
        new TypeError("fetch failed", { cause: Object.assign(new Error("x"), { code: "UND_ERR_SOCKET" }) }),
      ),
    ).toBe(true);
    expect(isUnreachable(new AggregateError([Object.assign(new Error("a"), { code: "ECONNREFUSED" })]))).toBe(true);
    expect(isUnreachable(Object.assign(new Error("the request socket timed out"), { name: "TimeoutError" }))).toBe(
      true,
    );
    expect(
      isUnreachable(
        Object.assign(new Error("The specified bucket does not exist"), {
          name: "NoSuchBucket",
          $metadata: { httpStatusCode: 404 },
        }),
      ),
    ).toBe(false);
    expect(isUnreachable(new Error("hash mismatch"))).toBe(false);
    expect(isUnreachable("ECONNREFUSED")).toBe(false);
  });
});

describe("choosing the byte store (S3_* variables)", () => {
  it("S3_FORCE_PATH_STYLE takes 1/0/true/false; anything else stops the start naming it", () => {
    for (const [value, want] of [
      ["1", true],
      ["true", true],
      ["0", false],
      ["false", false],
      ["", false],
    ] as const) {
      expect(parseEnv({ S3_BUCKET: "b", S3_FORCE_PATH_STYLE: value }).S3_FORCE_PATH_STYLE).toBe(want);
    }
    expect(parseEnv({}).S3_FORCE_PATH_STYLE).toBe(false);
    expect(() => parseEnv({ S3_FORCE_PATH_STYLE: "yes please" })).toThrow(
      /S3_FORCE_PATH_STYLE must be 1, 0, true or false/,
    );
    expect(() => parseEnv({ S3_ENDPOINT: "minio:9000" })).toThrow(/S3_ENDPOINT must be an http\(s\) URL/);
    expect(() => parseEnv({ S3_BUCKET: "b", S3_ACCESS_KEY_ID: "AKIAEXAMPLE" })).toThrow(
      /S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both, or neither/,
    );
  });

  it("S3_BUCKET wins over BLOB_READ_WRITE_TOKEN, and the context's store then reads and writes the bucket", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-choose-"));
    const ctx = await createContext(
      parseEnv({ DATA_DIR: dataDir, BLOB_READ_WRITE_TOKEN: blobStandin.token, ...s3.vars }),
    );
    try {
      expect(ctx.storage.kind).toBe("s3");
      expect(ctx.storage).toBeInstanceOf(GuardedStorage);
      const key = `choose-${randomBytes(4).toString("hex")}/x.txt`;
      await ctx.storage.put(key, Buffer.from("in the bucket"), "text/plain");
      expect((await readAll(await s3Storage().get(key)))?.toString()).toBe("in the bucket");
    } finally {
      await ctx.dbHandle.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
