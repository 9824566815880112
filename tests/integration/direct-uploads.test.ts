import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { put as clientPut } from "@vercel/blob/client";
import { serveGET } from "../support/serve";
import { countDrops, countFiles } from "@/lib/db/queries";
import { runCleanup } from "@/lib/drops/lifecycle";
import { accountScope, contentKey } from "@/lib/deploy/contents";
import {
  deployByContent,
  INLINE_BODY_BUDGET,
  type HashedFile,
  type UploadProgress,
  type UploadTransport,
} from "@/lib/files/upload";
import { APP_UPLOAD_MAX_BYTES } from "@/lib/plans";
import { preflightResponseSchema, type DeployResponse, type PreflightResponse } from "@/lib/schemas";
import { startBlobStandin, type BlobStandin } from "../support/blob-standin";
import { freshLimiter, dropRequest, makeTestContext, TEST_BASE_URL, type TestContext } from "../support/context";
import { inProcessDeploys } from "../support/deploy";
import { accountWithKey, bearer } from "../support/accounts";

// Uploads larger than a function's request limit go straight to Vercel Blob (the real SDK's
// client tokens, against the Blob stand-in), and are verified before a deploy may use them.
// Every request meant for the app goes through `app()`, which records each request body's size
// as the app receives it.

let t: TestContext;
let blob: BlobStandin;
let ownStandin: BlobStandin | undefined;

beforeAll(async () => {
  if (process.env.TEST_STACK !== "hosted") {
    ownStandin = await startBlobStandin();
    process.env.VERCEL_BLOB_RETRIES = "0";
  }
  t = await makeTestContext(
    ownStandin ? { BLOB_READ_WRITE_TOKEN: ownStandin.token, VERCEL_BLOB_API_URL: ownStandin.apiUrl } : {},
  );
  blob = t.hosted?.blob ?? ownStandin!;
  // Client tokens are checked by the storage's clock: the app's clock is the real one here.
  t.clock.now = Date.now();
  await freshLimiter(t);
});
afterAll(async () => {
  await t?.close();
  await ownStandin?.close();
});

const MB = 1024 * 1024;

/** The app, as a client reaches it (the deploy routes in-process, each body's size recorded), and `send`, which goes there or over HTTP. */
const { app, send, bodies: appBodies } = inProcessDeploys();

async function ok<T>(res: Response): Promise<T> {
  const body = (await res.json()) as T;
  expect({ status: res.status, body }).toMatchObject({ status: res.status < 300 ? res.status : 200 });
  return body;
}

interface LocalFile extends HashedFile {
  bytes: Uint8Array;
}

function localFile(path: string, bytes: Uint8Array): LocalFile {
  return { path, bytes, sha256: createHash("sha256").update(bytes).digest("hex"), size: bytes.byteLength };
}

/** The transport a generic client uses: fetch for everything, upload targets sent as they are. */
function transport(headers: Record<string, string>): UploadTransport<LocalFile, DeployResponse> {
  const json = { "content-type": "application/json", ...headers };
  return {
    preflight: async (body) =>
      preflightResponseSchema.parse(
        await ok(await send(`${TEST_BASE_URL}/deploy/preflight`, { method: "POST", body, headers: json })),
      ),
    read: async (file) => file.bytes,
    upload: async (target, file, onSent) => {
      const res = await send(target.url, {
        method: target.method,
        headers: target.headers,
        body: file.bytes as BodyInit,
      });
      expect(res.status, await res.clone().text()).toBeLessThan(300);
      onSent(file.size);
    },
    deploy: async (body, uploadToken) =>
      ok<DeployResponse>(
        await send(`${TEST_BASE_URL}/deploy`, {
          method: "POST",
          body,
          headers: { ...json, "x-upload-token": uploadToken },
        }),
      ),
  };
}

async function preflightFor(files: LocalFile[], headers: Record<string, string>): Promise<PreflightResponse> {
  return transport(headers).preflight(
    JSON.stringify({ files: Object.fromEntries(files.map((f) => [f.path, { sha256: f.sha256, size: f.size }])) }),
  );
}

async function servedBytes(slug: string, path: string): Promise<Buffer> {
  const res = await serveGET(dropRequest(slug, `/api/serve-drop${path}`));
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe("contents over 4 MB go straight to Vercel Blob", () => {
  it(
    "a 30 MB site (five 6 MB files) deploys through the preflight flow with no request body over 4 MB at the app, served byte-exact",
    { timeout: 120_000 },
    async () => {
      const a = await accountWithKey(t.ctx, "free");
      const files = [
        localFile("index.html", new TextEncoder().encode("<h1>big site</h1>")),
        ...Array.from({ length: 5 }, (_, i) => localFile(`media/part${i}.bin`, randomBytes(6 * MB))),
      ];
      appBodies.length = 0;
      blob.reset();
      const progress: number[] = [];
      const outcome = await deployByContent(files, transport(bearer(a.apiKey)), (p) => progress.push(p.sentBytes));
      expect(outcome).toMatchObject({ unchanged: 0, uploaded: 6, inline: 1 });
      expect(progress.at(-1)).toBe(30 * MB + files[0]!.size);
      // At the app: the preflight and the deploy (the small page inline); nothing near the function limit.
      expect(appBodies.map((b) => b.path).sort()).toEqual(["/deploy", "/deploy/preflight"]);
      expect(Math.max(...appBodies.map((b) => b.bytes))).toBeLessThanOrEqual(APP_UPLOAD_MAX_BYTES);
      // At storage: five client-token PUTs of 6 MB, one per exact pathname.
      const direct = blob.requests.filter((r) => r.auth === "client");
      expect(direct.map((r) => [r.kind, r.status, r.bodyBytes])).toEqual(
        Array.from({ length: 5 }, () => ["put", 200, 6 * MB]),
      );
      const scope = accountScope(a.account.id);
      expect(direct.map((r) => r.pathname).sort()).toEqual(
        files
          .slice(1)
          .map((f) => contentKey(scope, f.sha256))
          .sort(),
      );
      for (const f of files)
        expect(Buffer.compare(await servedBytes(outcome.result.slug, `/${f.path}`), Buffer.from(f.bytes))).toBe(0);
      // A redeploy sends nothing: every content is stored and verified.
      appBodies.length = 0;
      const again = await deployByContent(files, transport(bearer(a.apiKey)));
      expect(again).toMatchObject({ unchanged: 6, uploaded: 0 });
    },
  );

  it(
    "a first deploy of 200 small files and a 6 MB one: two requests at the app (small contents inline), the 6 MB file through its upload target",
    { timeout: 60_000 },
    async () => {
      const a = await accountWithKey(t.ctx, "pro");
      const small = Array.from({ length: 200 }, (_, i) =>
        localFile(
          `page${i}.${i % 3 === 0 ? "bin" : "html"}`,
          i % 3 === 0 ? randomBytes(2000) : new TextEncoder().encode(`<p>"${i}" é\u0001\n</p>`.repeat(40)),
        ),
      );
      const big = localFile("media/big.bin", randomBytes(6 * MB));
      const files = [...small, big];
      appBodies.length = 0;
      blob.reset();
      const progress: UploadProgress[] = [];
      const outcome = await deployByContent(files, transport(bearer(a.apiKey)), (p) => progress.push(p));
      expect(outcome).toMatchObject({ unchanged: 0, uploaded: 201, inline: 200 });
      expect(progress.at(-1)).toEqual({
        sentBytes: files.reduce((n, f) => n + f.size, 0),
        totalBytes: files.reduce((n, f) => n + f.size, 0),
        doneFiles: 201,
        totalFiles: 201,
      });
      expect(appBodies.map((b) => b.path).sort()).toEqual(["/deploy", "/deploy/preflight"]);
      expect(appBodies.find((b) => b.path === "/deploy")!.bytes).toBeLessThanOrEqual(INLINE_BODY_BUDGET);
      expect(blob.requests.filter((r) => r.auth === "client").map((r) => [r.kind, r.bodyBytes])).toEqual([
        ["put", 6 * MB],
      ]);
      for (const f of [small[0]!, small[1]!, big])
        expect(Buffer.compare(await servedBytes(outcome.result.slug, `/${f.path}`), Buffer.from(f.bytes))).toBe(0);
    },
  );

  it(
    "inline contents stop at the body budget: the rest go to upload targets, the deploy body stays under it",
    { timeout: 60_000 },
    async () => {
      const a = await accountWithKey(t.ctx, "free");
      const files = Array.from({ length: 6 }, (_, i) => localFile(`part${i}.bin`, randomBytes(MB + i)));
      appBodies.length = 0;
      const outcome = await deployByContent(files, transport(bearer(a.apiKey)));
      // Base64 makes each 1 MB content 1.33 MB in the body: two fit, the four largest are uploaded.
      expect(outcome).toMatchObject({ unchanged: 0, uploaded: 6, inline: 2 });
      expect(appBodies.filter((b) => b.path.startsWith("/deploy/uploads/"))).toHaveLength(4);
      const deployBody = appBodies.find((b) => b.path === "/deploy")!.bytes;
      expect(deployBody).toBeGreaterThan(2 * MB);
      expect(deployBody).toBeLessThanOrEqual(INLINE_BODY_BUDGET);
      for (const f of files)
        expect(Buffer.compare(await servedBytes(outcome.result.slug, `/${f.path}`), Buffer.from(f.bytes))).toBe(0);
    },
  );

  it("anonymous: a direct upload with the wrong bytes is refused at deploy (400, unusable), nothing is created and the object is deleted", async () => {
    const right = localFile("video.bin", randomBytes(5 * MB));
    const pre = await preflightFor([right], {});
    const target = pre.uploads[0]!;
    expect(target.url.startsWith(blob.apiUrl)).toBe(true);
    // Same size, other bytes: storage takes them (it cannot know the hash) …
    const wrong = await fetch(target.url, { method: "PUT", headers: target.headers, body: randomBytes(5 * MB) });
    expect(wrong.status).toBe(200);
    const pathname = new URL(target.url).searchParams.get("pathname")!;
    expect(blob.blobs.has(pathname)).toBe(true);
    // … and the deploy that would use them reads them back and refuses.
    const [drops, rows] = [await countDrops(t.ctx.db), await countFiles(t.ctx.db)];
    const res = await app(`${TEST_BASE_URL}/deploy`, {
      method: "POST",
      body: JSON.stringify({ files: { "video.bin": { sha256: right.sha256, size: right.size } } }),
      headers: { "content-type": "application/json", "x-upload-token": pre.upload_token },
    });
    const body = (await res.json()) as { code: string; error: string; hint?: string; unusable?: string[] };
    expect({ status: res.status, code: body.code }).toEqual({ status: 400, code: "invalid_request" });
    expect(body.unusable).toEqual([right.sha256]);
    expect(body.hint).toBeTruthy();
    expect([await countDrops(t.ctx.db), await countFiles(t.ctx.db)]).toEqual([drops, rows]);
    expect(blob.blobs.has(pathname)).toBe(false);
    // A fresh preflight issues a new target; the right bytes then deploy.
    const outcome = await deployByContent([right], transport({}));
    expect(Buffer.compare(await servedBytes(outcome.result.slug, "/video.bin"), Buffer.from(right.bytes))).toBe(0);
  });

  it("a client token writes its own pathname only, at most its size, never over an existing object", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const one = localFile("one.bin", randomBytes(4 * MB + 1));
    const two = localFile("two.bin", randomBytes(4 * MB + 2));
    const pre = await preflightFor([one, two], bearer(a.apiKey));
    const target = pre.uploads.find((u) => u.sha256 === one.sha256)!;
    const scope = accountScope(a.account.id);
    const elsewhere = new URL(target.url);
    elsewhere.searchParams.set("pathname", contentKey(scope, two.sha256));
    const stolen = await fetch(elsewhere, { method: "PUT", headers: target.headers, body: two.bytes as BodyInit });
    expect(stolen.status).toBe(400);
    expect(JSON.stringify(await stolen.json())).toContain("does not match the token payload");
    expect(blob.blobs.has(contentKey(scope, two.sha256))).toBe(false);
    const longer = await fetch(target.url, {
      method: "PUT",
      headers: target.headers,
      body: Buffer.concat([one.bytes, Buffer.from("x")]),
    });
    expect(longer.status).toBe(400);
    // The real SDK's client put, with the token from the target, writes the content once.
    const clientToken = target.headers.authorization!.replace(/^Bearer /, "");
    blob.reset();
    const written = await clientPut(contentKey(scope, one.sha256), Buffer.from(one.bytes), {
      access: "public",
      token: clientToken,
      contentType: "application/octet-stream",
    });
    expect(written.pathname).toBe(contentKey(scope, one.sha256));
    // The generic target sends what the SDK sends.
    const sdk = blob.requests.find((r) => r.kind === "put")!;
    for (const h of ["x-api-version", "x-vercel-blob-store-id", "x-vercel-blob-access"])
      expect(target.headers[h], h).toBe(sdk.headers[h]);
    const overwrite = await fetch(target.url, { method: "PUT", headers: target.headers, body: one.bytes as BodyInit });
    expect(overwrite.status).toBe(400);
    // An upload no deploy has used yet is checked at the next preflight and not asked for again.
    const next = await preflightFor([one], bearer(a.apiKey));
    expect(next.missing).toEqual([]);
    // The SDK's multipart client upload takes the same token; the deploy then verifies and uses it.
    const twoToken = pre.uploads.find((u) => u.sha256 === two.sha256)!.headers.authorization!.replace(/^Bearer /, "");
    await clientPut(contentKey(scope, two.sha256), Buffer.from(two.bytes), {
      access: "public",
      token: twoToken,
      multipart: true,
    });
    expect(blob.requests.filter((r) => r.kind.startsWith("mpu-")).map((r) => [r.kind, r.auth, r.status])).toEqual([
      ["mpu-create", "client", 200],
      ["mpu-upload", "client", 200],
      ["mpu-complete", "client", 200],
    ]);
    const deployed = await transport(bearer(a.apiKey)).deploy(
      JSON.stringify({
        files: { "one.bin": { sha256: one.sha256, size: one.size }, "two.bin": { sha256: two.sha256, size: two.size } },
      }),
      pre.upload_token,
    );
    expect(Buffer.compare(await servedBytes(deployed.slug, "/two.bin"), Buffer.from(two.bytes))).toBe(0);
  });

  it("contents up to 4 MB still go through the app's streamed upload", async () => {
    const small = localFile("small.bin", randomBytes(APP_UPLOAD_MAX_BYTES));
    const pre = await preflightFor([small], {});
    expect(pre.uploads[0]!.url.startsWith(`${TEST_BASE_URL}/deploy/uploads/`)).toBe(true);
  });

  it("the cleanup job deletes direct uploads no deploy used once the preflight's hold has passed", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const unused = localFile("unused.bin", randomBytes(4 * MB + 3));
    const pre = await preflightFor([unused], bearer(a.apiKey));
    const target = pre.uploads[0]!;
    expect(
      (await fetch(target.url, { method: "PUT", headers: target.headers, body: unused.bytes as BodyInit })).status,
    ).toBe(200);
    const pathname = contentKey(accountScope(a.account.id), unused.sha256);
    await runCleanup(t.ctx);
    expect(blob.blobs.has(pathname)).toBe(true);
    t.clock.advance(3601);
    await runCleanup(t.ctx);
    expect(blob.blobs.has(pathname)).toBe(false);
  });

  it("the Blob API answers browsers' CORS preflights for direct uploads", async () => {
    const res = await fetch(`${blob.apiUrl}/?pathname=x`, {
      method: "OPTIONS",
      headers: {
        origin: TEST_BASE_URL,
        "access-control-request-method": "PUT",
        "access-control-request-headers": "authorization,x-api-version",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(TEST_BASE_URL);
    expect(res.headers.get("access-control-allow-headers")).toContain("authorization");
  });
});
