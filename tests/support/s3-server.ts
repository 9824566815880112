import crypto, { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import S3rver from "s3rver";
import { freePort } from "./net";

// A real S3 API server on loopback: s3rver (npm), the S3 REST API over a directory, so the
// storage contract and the deploy suites run against the AWS SDK's real requests on any machine.
// s3rver neither checks SigV4 signatures nor x-amz-checksum-sha256 (a store that skips checksum
// checks, as some S3-compatible stores do): the app's own read-back at deploy is what refuses
// wrong bytes there, and the tests show it.

// s3rver (3.7.1, its last release) seals its ListObjectsV2 continuation tokens with DES, which
// OpenSSL 3 (Node 17 and later) no longer has: every listing of more than 1,000 keys answered
// 500 InternalError, whatever the app did (it read like a store broken by the outage in the
// reliability run). Its token cipher gets AES-128 in DES's place, with the 8-byte key and IV
// s3rver passes doubled; nothing else in the process asks for "des", which would throw anyway.
// The token is opaque to clients, so nothing else changes.
let tokensPatched = false;
function patchContinuationTokens(): void {
  if (tokensPatched) return;
  tokensPatched = true;
  const twice = (b: crypto.BinaryLike) => Buffer.concat([Buffer.from(b as Uint8Array), Buffer.from(b as Uint8Array)]);
  type Make = (algorithm: string, key: crypto.BinaryLike, iv: crypto.BinaryLike, options?: unknown) => unknown;
  const patched =
    (original: Make): Make =>
    (algorithm, key, iv, options) =>
      algorithm === "des" ? original("aes-128-cbc", twice(key), twice(iv)) : original(algorithm, key, iv, options);
  const mutable = crypto as unknown as { createCipheriv: Make; createDecipheriv: Make };
  mutable.createCipheriv = patched(mutable.createCipheriv.bind(crypto));
  mutable.createDecipheriv = patched(mutable.createDecipheriv.bind(crypto));
}

export interface S3Server {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The app's S3_* variables for this server. */
  vars: Record<string, string>;
  /** Stops answering (the port refuses connections) until `start`: an outage of the store. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startS3Server(): Promise<S3Server> {
  patchContinuationTokens();
  const directory = await mkdtemp(path.join(tmpdir(), "dropsite-s3-"));
  const port = await freePort();
  const bucket = "dropsite-test";
  let server: S3rver | undefined;
  const start = async () => {
    server = new S3rver({
      port,
      address: "127.0.0.1",
      silent: true,
      directory,
      configureBuckets: [{ name: bucket, configs: [] }],
    });
    await server.run();
  };
  const stop = async () => {
    const stopping = server;
    server = undefined;
    if (!stopping) return;
    // A clean stop, as a store going down behind a load balancer: no new connection is accepted,
    // the requests it is answering finish (so no object is left half-written), and every
    // keep-alive connection closes as soon as it is idle. Node's close() closes the connections
    // idle at that moment only, and a client that keeps reusing the others would keep the
    // store answering on them for as long as it is busy.
    const closed = stopping.close();
    const sweep = setInterval(() => stopping.httpServer?.closeIdleConnections(), 5);
    try {
      await closed;
    } finally {
      clearInterval(sweep);
    }
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  const accessKeyId = "S3RVER";
  const secretAccessKey = `s3-test-${randomBytes(12).toString("hex")}`;
  return {
    endpoint,
    bucket,
    accessKeyId,
    secretAccessKey,
    vars: {
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_REGION: "us-east-1",
      S3_ACCESS_KEY_ID: accessKeyId,
      S3_SECRET_ACCESS_KEY: secretAccessKey,
      S3_FORCE_PATH_STYLE: "1",
    },
    stop,
    start,
    async close() {
      await stop();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
