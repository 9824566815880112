import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zipSync } from "fflate";
import * as dropsRoute from "@/app/drops/[slug]/route";
import { serveGET } from "../support/serve";
import { countDrops, countFiles } from "@/lib/db/queries";
import { accountScope, contentKey, releaseContents } from "@/lib/deploy/contents";
import { findContent, pinContents } from "@/lib/db/contents";
import { deployZipByReference, type HashedFile, type UploadTransport } from "@/lib/files/upload";
import { APP_UPLOAD_MAX_BYTES, limits } from "@/lib/plans";
import { preflightResponseSchema, type DeployResponse, type PreflightResponse } from "@/lib/schemas";
import {
  apiRequest,
  dropRequest,
  freshLimiter,
  makeTestContext,
  TEST_BASE_URL,
  type TestContext,
} from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { startS3Server, type S3Server } from "../support/s3-server";
import { bomb, text, zip, zipWithSymlink } from "../support/zips";
import { freePort } from "../support/net";
import { inProcessDeploys } from "../support/deploy";
import { issueDeployGrant } from "@/lib/deploy/grants";
import { anonymousCaller } from "@/lib/auth/caller";
import { runProgram } from "../support/run";
import { runCli } from "../support/cli";

// Zips by reference ({"zip": {sha256, size}} in the preflight and the deploy body): the archive
// goes straight to storage (S3 on s3rver in the embedded project, Vercel Blob's stand-in on the
// hosted stack), the deploy unpacks it from there under a posted zip's rules. Every request meant
// for the app goes through `app()`, which records each request body's size as the app gets it.

const MB = 1024 * 1024;

/** The app, as a client reaches it (the deploy routes in-process, each body's size recorded), and `send`, which goes there or over HTTP. */
const { app, send, bodies: appBodies } = inProcessDeploys();

interface Archive extends HashedFile {
  bytes: Uint8Array;
}

function archive(bytes: Uint8Array): Archive {
  return { path: "site.zip", bytes, sha256: createHash("sha256").update(bytes).digest("hex"), size: bytes.byteLength };
}

class Refused extends Error {
  constructor(
    readonly status: number,
    readonly body: { code: string; error: string; unusable?: string[]; limit?: string; allowed?: number },
  ) {
    super(`${status} ${body.code}: ${body.error}`);
  }
}

async function answer<T>(res: Response): Promise<T> {
  const body = (await res.json()) as T;
  if (res.status >= 300) throw new Refused(res.status, body as Refused["body"]);
  return body;
}

/** A generic client: fetch for everything, upload targets sent as they are. */
function transport(headers: Record<string, string>): UploadTransport<Archive, DeployResponse> {
  const json = { "content-type": "application/json", ...headers };
  return {
    preflight: async (body) =>
      preflightResponseSchema.parse(
        await answer(await send(`${TEST_BASE_URL}/deploy/preflight`, { method: "POST", body, headers: json })),
      ),
    upload: async (target, file) => {
      const res = await send(target.url, {
        method: target.method,
        headers: target.headers,
        body: file.bytes as BodyInit,
      });
      expect(res.status, await res.clone().text()).toBeLessThan(300);
    },
    deploy: async (body, uploadToken) =>
      answer<DeployResponse>(
        await send(`${TEST_BASE_URL}/deploy`, {
          method: "POST",
          body,
          headers: { ...json, "x-upload-token": uploadToken },
        }),
      ),
  };
}

async function refusal(p: Promise<unknown>): Promise<Refused> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof Refused)) throw new Error(`expected a refusal, got ${String(err)}`);
  return err;
}

async function served(slug: string, path: string): Promise<Buffer> {
  const res = await serveGET(dropRequest(slug, `/api/serve-drop${path}`));
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** Posts bytes as a zip body; the answer's status and code. */
async function postZip(bytes: Uint8Array): Promise<{ status: number; code?: string }> {
  const res = await app(`${TEST_BASE_URL}/deploy`, {
    method: "POST",
    body: bytes as BodyInit,
    headers: { "content-type": "application/zip" },
  });
  const body = (await res.json()) as { code?: string };
  return { status: res.status, code: body.code };
}

/** Deploys bytes as a zip by reference, anonymously; the answer's status and code. */
async function zipByReference(bytes: Uint8Array): Promise<{ status: number; code?: string }> {
  try {
    await deployZipByReference(archive(bytes), transport({}));
    return { status: 200 };
  } catch (err) {
    if (err instanceof Refused) return { status: err.status, code: err.body.code };
    throw err;
  }
}

describe("zips by reference on a direct-upload store (S3 on s3rver; Blob stand-in on the hosted stack)", () => {
  let t: TestContext;
  let s3: S3Server | undefined;
  beforeAll(async () => {
    if (process.env.TEST_STACK !== "hosted") s3 = await startS3Server();
    t = await makeTestContext(s3?.vars ?? {});
    // Blob client tokens are checked by the storage's clock: the app's clock is the real one here.
    t.clock.now = Date.now();
    await freshLimiter(t);
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  it(
    "a 30 MB zip deploys with no request body to the app over 4 MB, is served byte-exact, and the archive is let go",
    { timeout: 180_000 },
    async () => {
      expect(t.ctx.storage.kind).toBe(s3 ? "s3" : "blob");
      const a = await accountWithKey(t.ctx, "pro");
      const media = Array.from({ length: 3 }, () => randomBytes(10 * MB));
      const bytes = zipSync({
        "site/index.html": text("<h1>thirty</h1>"),
        "site/a.bin": [media[0]!, { level: 0 }],
        "site/b.bin": [media[1]!, { level: 0 }],
        "site/c.bin": [media[2]!, { level: 0 }],
      });
      expect(bytes.byteLength).toBeGreaterThan(30 * MB);
      const zipFile = archive(bytes);
      appBodies.length = 0;
      const res = await deployZipByReference(zipFile, transport(bearer(a.apiKey)));
      expect(res.files.sort()).toEqual(["a.bin", "b.bin", "c.bin", "index.html"]);
      // At the app: the preflight and the deploy, both small; the archive went straight to storage.
      expect(appBodies.map((b) => b.path)).toEqual(["/deploy/preflight", "/deploy"]);
      expect(Math.max(...appBodies.map((b) => b.bytes))).toBeLessThanOrEqual(APP_UPLOAD_MAX_BYTES);
      expect((await served(res.slug, "/index.html")).toString()).toBe("<h1>thirty</h1>");
      for (const [i, name] of ["a", "b", "c"].entries())
        expect(Buffer.compare(await served(res.slug, `/${name}.bin`), media[i]!)).toBe(0);
      // The archive itself is no file of any drop: its bytes are gone once the deploy has unpacked it.
      expect(await t.ctx.storage.direct!.stat(contentKey(accountScope(a.account.id), zipFile.sha256))).toBeNull();
    },
  );

  it(
    "anonymous: the preflight's upload_token, presented as X-Upload-Token, opens the archive; without it the reference is unusable",
    { timeout: 60_000 },
    async () => {
      const zipFile = archive(
        zipSync({ "index.html": text("<h1>anon</h1>"), "big.bin": [randomBytes(5 * MB), { level: 0 }] }),
      );
      const tr = transport({});
      const pre = await tr.preflight(JSON.stringify({ zip: { sha256: zipFile.sha256, size: zipFile.size } }));
      expect(pre.missing).toEqual([zipFile.sha256]);
      expect(pre.uploads[0]!.url.startsWith(TEST_BASE_URL)).toBe(false);
      await tr.upload(pre.uploads[0]!, zipFile, () => undefined);
      const ref = JSON.stringify({ zip: { sha256: zipFile.sha256, size: zipFile.size } });
      const [drops, rows] = [await countDrops(t.ctx.db), await countFiles(t.ctx.db)];
      const without = await refusal(
        answer(
          await app(`${TEST_BASE_URL}/deploy`, {
            method: "POST",
            body: ref,
            headers: { "content-type": "application/json" },
          }),
        ),
      );
      expect({ status: without.status, code: without.body.code, unusable: without.body.unusable }).toEqual({
        status: 400,
        code: "invalid_request",
        unusable: [zipFile.sha256],
      });
      expect(without.body.error).toMatch(/zip archive/);
      expect([await countDrops(t.ctx.db), await countFiles(t.ctx.db)]).toEqual([drops, rows]);
      const res = await tr.deploy(ref, pre.upload_token);
      expect(res.claim_token).toBeTruthy();
      expect((await served(res.slug, "/")).toString()).toBe("<h1>anon</h1>");
    },
  );

  it("the zip limit exactly passes the preflight, one byte more is 413 zip_bytes; a deploy naming one byte more is 413 too", async () => {
    const cap = limits.anonymous.zipBytes;
    const tr = transport({});
    const sha256 = createHash("sha256").update("x").digest("hex");
    const pre = await tr.preflight(JSON.stringify({ zip: { sha256, size: cap } }));
    expect(pre.missing).toEqual([sha256]);
    const over = await refusal(tr.preflight(JSON.stringify({ zip: { sha256, size: cap + 1 } })));
    expect({ status: over.status, code: over.body.code, limit: over.body.limit, allowed: over.body.allowed }).toEqual({
      status: 413,
      code: "payload_too_large",
      limit: "zip_bytes",
      allowed: cap,
    });
    const deployOver = await refusal(tr.deploy(JSON.stringify({ zip: { sha256, size: cap + 1 } }), pre.upload_token));
    expect({ status: deployOver.status, code: deployOver.body.code, limit: deployOver.body.limit }).toEqual({
      status: 413,
      code: "payload_too_large",
      limit: "zip_bytes",
    });
    // A preflight names files or a zip; both, or a malformed reference, are 400.
    expect((await refusal(tr.preflight(JSON.stringify({ zip: { sha256, size: 1 }, files: {} })))).status).toBe(400);
    expect((await refusal(tr.preflight(JSON.stringify({ zip: { sha256: "nope", size: 1 } })))).body.code).toBe(
      "invalid_request",
    );
  });

  it(
    "bad archives by reference answer as posted zips do (zip slip, symlink, not a zip, expansion ratio), and create nothing",
    { timeout: 60_000 },
    async () => {
      const cases = {
        "zip slip": zip({ "index.html": "ok", "../../etc/evil.html": "x" }),
        symlink: zipWithSymlink("link", "/etc/passwd"),
        "not a zip": randomBytes(50_000),
        truncated: zip({ "index.html": "<h1>cut</h1>".repeat(1000) }).subarray(0, 200),
        ratio: bomb(2 * MB),
      };
      for (const [name, bytes] of Object.entries(cases)) {
        await freshLimiter(t);
        const [drops, rows] = [await countDrops(t.ctx.db), await countFiles(t.ctx.db)];
        const posted = await postZip(bytes);
        const referenced = await zipByReference(bytes);
        expect(posted.status, name).toBeGreaterThanOrEqual(400);
        expect(referenced, name).toEqual(posted);
        expect([await countDrops(t.ctx.db), await countFiles(t.ctx.db)], name).toEqual([drops, rows]);
      }
      expect(await postZip(cases["zip slip"])).toEqual({ status: 400, code: "invalid_request" });
      expect(await postZip(cases["not a zip"])).toEqual({ status: 400, code: "invalid_zip" });
      expect(await postZip(cases.ratio)).toEqual({ status: 413, code: "payload_too_large" });
    },
  );

  it("unusable references: never uploaded, another account's, another size; 400 with unusable", async () => {
    await freshLimiter(t);
    const a = await accountWithKey(t.ctx, "free");
    const b = await accountWithKey(t.ctx, "free");
    const small = archive(zip({ "index.html": "<h1>a's</h1>" }));
    const ok = await deployZipByReference(small, transport(bearer(a.apiKey)));
    expect(ok.files).toEqual(["index.html"]);
    // The archive was let go; a's second preflight would ask for it again. Upload it once more and keep it.
    const trA = transport(bearer(a.apiKey));
    const pre = await trA.preflight(JSON.stringify({ zip: { sha256: small.sha256, size: small.size } }));
    for (const u of pre.uploads) await trA.upload(u, small, () => undefined);
    const never = createHash("sha256").update("never uploaded").digest("hex");
    for (const [who, ref] of [
      [b, { sha256: small.sha256, size: small.size }], // a's archive, as b
      [a, { sha256: never, size: 1234 }], // never uploaded
      [a, { sha256: small.sha256, size: small.size + 1 }], // another size
    ] as const) {
      const err = await refusal(
        answer(
          await app(`${TEST_BASE_URL}/deploy`, {
            method: "POST",
            body: JSON.stringify({ zip: ref }),
            headers: { "content-type": "application/json", ...bearer(who.apiKey) },
          }),
        ),
      );
      expect({ status: err.status, code: err.body.code, unusable: err.body.unusable }).toEqual({
        status: 400,
        code: "invalid_request",
        unusable: [ref.sha256],
      });
    }
    // a's own reference still deploys.
    expect(
      (await trA.deploy(JSON.stringify({ zip: { sha256: small.sha256, size: small.size } }), pre.upload_token)).files,
    ).toEqual(["index.html"]);
  });

  it(
    "deleting a drop removes at once the contents only it referenced, although their preflight's hold has not passed",
    { timeout: 60_000 },
    async () => {
      await freshLimiter(t);
      const a = await accountWithKey(t.ctx, "free");
      const big = randomBytes(5 * MB);
      const sha = createHash("sha256").update(big).digest("hex");
      const tr = transport(bearer(a.apiKey));
      const pre = await tr.preflight(JSON.stringify({ files: { "index.html": { sha256: sha, size: big.length } } }));
      await send(pre.uploads[0]!.url, { method: "PUT", headers: pre.uploads[0]!.headers, body: new Uint8Array(big) });
      const res = await tr.deploy(
        JSON.stringify({ files: { "index.html": { sha256: sha, size: big.length } } }),
        pre.upload_token,
      );
      const key = contentKey(accountScope(a.account.id), sha);
      expect(await t.ctx.storage.direct!.stat(key)).toMatchObject({ size: big.length });
      const started = Date.now();
      const del = await dropsRoute.DELETE(
        new Request(`${TEST_BASE_URL}/drops/${res.slug}`, {
          method: "DELETE",
          headers: { ...bearer(a.apiKey), "x-dropsite-socket-ip": "198.51.100.77" },
        }),
        { params: Promise.resolve({ slug: res.slug }) },
      );
      expect(del.status).toBeLessThan(300);
      expect(await t.ctx.storage.direct!.stat(key)).toBeNull();
      expect(Date.now() - started).toBeLessThan(10_000);
    },
  );

  it(
    "wrong bytes sent straight to storage (a store that skips checksums takes them) are refused at deploy, 400 unusable, and deleted",
    { timeout: 60_000 },
    async () => {
      await freshLimiter(t);
      const right = archive(
        zipSync({ "index.html": text("<h1>right</h1>"), "big.bin": [randomBytes(5 * MB), { level: 0 }] }),
      );
      const tr = transport({});
      const pre: PreflightResponse = await tr.preflight(
        JSON.stringify({ zip: { sha256: right.sha256, size: right.size } }),
      );
      const target = pre.uploads[0]!;
      expect(target.url.startsWith(TEST_BASE_URL)).toBe(false);
      const wrong = await fetch(target.url, {
        method: "PUT",
        headers: target.headers,
        body: new Uint8Array(randomBytes(right.size)),
      });
      expect(wrong.status).toBe(200);
      const [drops, rows] = [await countDrops(t.ctx.db), await countFiles(t.ctx.db)];
      const err = await refusal(
        tr.deploy(JSON.stringify({ zip: { sha256: right.sha256, size: right.size } }), pre.upload_token),
      );
      expect({ status: err.status, code: err.body.code, unusable: err.body.unusable }).toEqual({
        status: 400,
        code: "invalid_request",
        unusable: [right.sha256],
      });
      expect([await countDrops(t.ctx.db), await countFiles(t.ctx.db)]).toEqual([drops, rows]);
      const scopes = await t.ctx.storage.list("c/p-");
      expect(scopes.filter((k) => k.endsWith(right.sha256))).toEqual([]);
      // A fresh preflight, the right bytes: deployed.
      const res = await deployZipByReference(right, transport({}));
      expect((await served(res.slug, "/")).toString()).toBe("<h1>right</h1>");
    },
  );
});

/** The app's handlers on a loopback port (through `app()`, so every body is recorded), for the real CLI. */
async function listen(): Promise<{ server: Server; api: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (typeof v === "string" && k !== "host" && k !== "content-length") headers[k] = v;
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        const answer = await app(`${TEST_BASE_URL}${req.url ?? "/"}`, {
          method: req.method,
          headers,
          body: body ? new Uint8Array(body) : undefined,
        });
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(Buffer.from(await answer.arrayBuffer()));
      })();
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return { server, api: `http://127.0.0.1:${port}` };
}

/**
 * Suites of the embedded stack's stores only (S3 on loopback, the filesystem): the hosted stack
 * stores bytes in the Blob stand-in, so these are not defined there (not skipped).
 */
function embeddedOnly(name: string, fn: () => void): void {
  if (process.env.TEST_STACK !== "hosted") describe(name, fn);
}

embeddedOnly(
  "an S3 outage: 503 with Retry-After while the bucket is down, nothing half-written, everything works after",
  () => {
    let t: TestContext;
    let s3: S3Server;
    beforeAll(async () => {
      s3 = await startS3Server();
      t = await makeTestContext(s3.vars);
      // Real time: the presigned PUT's expiry is counted from the grant's, and the bucket checks it by its own clock.
      t.clock.now = Date.now();
      await freshLimiter(t);
    });
    afterAll(async () => {
      await t?.close();
      await s3?.close();
    });

    it(
      "deploys (posted zip, zip by reference, files) and reads answer 503 + Retry-After during the outage, and succeed after it",
      { timeout: 120_000 },
      async () => {
        const before = await deployZipByReference(
          archive(zip({ "index.html": "<h1>before</h1>", "a.css": "a{}" })),
          transport({}),
        );
        const media = randomBytes(5 * MB);
        const zipFile = archive(zipSync({ "index.html": text("<h1>during</h1>"), "big.bin": [media, { level: 0 }] }));
        const tr = transport({});
        const pre = await tr.preflight(JSON.stringify({ zip: { sha256: zipFile.sha256, size: zipFile.size } }));
        await tr.upload(pre.uploads[0]!, zipFile, () => undefined);
        const [drops, rows] = [await countDrops(t.ctx.db), await countFiles(t.ctx.db)];
        await s3.stop();
        try {
          const answers = [
            await app(`${TEST_BASE_URL}/deploy`, {
              method: "POST",
              body: zip({ "index.html": "<h1>posted</h1>" }) as BodyInit,
              headers: { "content-type": "application/zip" },
            }),
            await app(`${TEST_BASE_URL}/deploy`, {
              method: "POST",
              body: JSON.stringify({ zip: { sha256: zipFile.sha256, size: zipFile.size } }),
              headers: { "content-type": "application/json", "x-upload-token": pre.upload_token },
            }),
            await app(`${TEST_BASE_URL}/deploy`, {
              method: "POST",
              body: JSON.stringify({ files: { "index.html": "<h1>json</h1>" } }),
              headers: { "content-type": "application/json" },
            }),
            await serveGET(dropRequest(before.slug, "/api/serve-drop/a.css")),
          ];
          for (const res of answers)
            expect({ status: res.status, retryAfter: res.headers.get("retry-after") }).toEqual({
              status: 503,
              retryAfter: expect.stringMatching(/^\d+$/),
            });
          expect([await countDrops(t.ctx.db), await countFiles(t.ctx.db)]).toEqual([drops, rows]);
        } finally {
          await s3.start();
        }
        // The store was marked down (lib/storage/guard.ts): it answers again once its next probe does, within seconds.
        const back = Date.now();
        while (
          !(await t.ctx.storage.list("healthz/").then(
            () => true,
            () => false,
          ))
        ) {
          expect(Date.now() - back).toBeLessThan(10_000);
          await new Promise((r) => setTimeout(r, 100));
        }
        // After: the drop from before serves, the uploaded archive still deploys by reference, new deploys work.
        expect((await served(before.slug, "/a.css")).toString()).toBe("a{}");
        const res = await tr.deploy(
          JSON.stringify({ zip: { sha256: zipFile.sha256, size: zipFile.size } }),
          pre.upload_token,
        );
        expect((await served(res.slug, "/")).toString()).toBe("<h1>during</h1>");
        expect(Buffer.compare(await served(res.slug, "/big.bin"), media)).toBe(0);
        expect(await postZip(zip({ "index.html": "<h1>after</h1>" }))).toEqual({ status: 200 });
      },
    );
  },
);

embeddedOnly("bytes a deploy stored before the database could record them go with their row (S3)", () => {
  let t: TestContext;
  let s3: S3Server;
  beforeAll(async () => {
    s3 = await startS3Server();
    t = await makeTestContext(s3.vars);
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  it("a purged row without a ref takes the small object at its key with it: no bytes without a row", async () => {
    // What the reliability run's outage leaves: a deploy pinned a content, stored its bytes, and
    // the database went before it recorded them; the deploy's release (or the cleanup) purges the row.
    const { account } = await accountWithKey(t.ctx);
    const scope = accountScope(account.id);
    const bytes = Buffer.from("<h1>stored, never recorded</h1>");
    const sha = createHash("sha256").update(bytes).digest("hex");
    expect(bytes.byteLength).toBeLessThanOrEqual(APP_UPLOAD_MAX_BYTES);
    expect(t.ctx.storage.direct).toBeTruthy();
    await pinContents(t.ctx.db, scope, [{ sha256: sha, size: bytes.byteLength }], new Date(t.ctx.now()));
    await t.ctx.storage.put(contentKey(scope, sha), bytes, "application/octet-stream");
    expect(await t.ctx.storage.list(`c/${scope}/`)).toEqual([contentKey(scope, sha)]);
    await releaseContents(t.ctx, scope, [sha], { purge: true });
    expect(await findContent(t.ctx.db, scope, sha)).toBeUndefined();
    expect(await t.ctx.storage.list(`c/${scope}/`)).toEqual([]);
  });
});

describe("dropsite deploy site.zip over 4 MB goes by reference (the real CLI, cli/dist/dropsite.mjs)", () => {
  let t: TestContext;
  let s3: S3Server | undefined;
  let server: Server;
  let api: string;
  let work: string;
  beforeAll(async () => {
    if (process.env.TEST_STACK !== "hosted") s3 = await startS3Server();
    t = await makeTestContext(s3?.vars ?? {});
    t.clock.now = Date.now();
    await freshLimiter(t);
    ({ server, api } = await listen());
    work = await mkdtemp(path.join(tmpdir(), "dropsite-zcli-"));
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await t?.close();
    await s3?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it(
    "an anonymous 12 MB zip: preflight, PUT straight to storage, deploy; no body to the app over 4 MB",
    { timeout: 120_000 },
    async () => {
      const media = randomBytes(12 * MB);
      const file = path.join(work, "site.zip");
      await writeFile(
        file,
        zipSync({ "dist/index.html": text("<h1>cli zip</h1>"), "dist/video.bin": [media, { level: 0 }] }),
      );
      appBodies.length = 0;
      const r = await runCli(work, api, ["deploy", file, "--json"]);
      expect(r.code, r.stderr).toBe(0);
      const res = JSON.parse(r.stdout) as DeployResponse;
      expect(res.files.sort()).toEqual(["index.html", "video.bin"]);
      expect(appBodies.map((b) => b.path)).toEqual(["/deploy/preflight", "/deploy"]);
      expect(Math.max(...appBodies.map((b) => b.bytes))).toBeLessThanOrEqual(APP_UPLOAD_MAX_BYTES);
      expect(Buffer.compare(await served(res.slug, "/video.bin"), media)).toBe(0);
    },
  );

  it(
    "deploy_directory's curl command sends site.zip by reference (a POSIX shell, curl, sed, awk); no body to the app over 4 MB",
    { timeout: 120_000 },
    async () => {
      const g = await issueDeployGrant(t.ctx, apiRequest("/mcp", { method: "POST" }), anonymousCaller, { dir: "site" });
      expect(g.commands.curl).toContain(`${g.url}/preflight`);
      expect(g.commands.curl).not.toContain("application/zip");
      const media = randomBytes(6 * MB);
      await writeFile(
        path.join(work, "site.zip"),
        zipSync({ "index.html": text("<h1>from curl</h1>"), "media.bin": [media, { level: 0 }] }),
      );
      appBodies.length = 0;
      const r = await runProgram("sh", ["-c", g.commands.curl.replaceAll(TEST_BASE_URL, api)], {
        cwd: work,
        env: { PATH: process.env.PATH ?? "", NODE_ENV: "production" },
      });
      expect(r.code, r.stderr).toBe(0);
      const res = JSON.parse(r.stdout) as DeployResponse;
      expect(res.claim_token).toBeTruthy();
      expect(appBodies.map((b) => b.path)).toEqual([
        `/deploy/once/${g.url.split("/").pop()}/preflight`,
        `/deploy/once/${g.url.split("/").pop()}`,
      ]);
      expect(Math.max(...appBodies.map((b) => b.bytes))).toBeLessThanOrEqual(APP_UPLOAD_MAX_BYTES);
      expect((await served(res.slug, "/")).toString()).toBe("<h1>from curl</h1>");
      expect(Buffer.compare(await served(res.slug, "/media.bin"), media)).toBe(0);
    },
  );
});

embeddedOnly("zips by reference on the filesystem store (uploads through the app)", () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await makeTestContext();
    await freshLimiter(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("the upload target is the app's own; the deploy unpacks the stored archive", async () => {
    const small = archive(zip({ "index.html": "<h1>fs</h1>", "css/site.css": "body{}" }));
    const tr = transport({});
    const pre = await tr.preflight(JSON.stringify({ zip: { sha256: small.sha256, size: small.size } }));
    expect(pre.uploads.map((u) => u.url)).toEqual([
      `${TEST_BASE_URL}/deploy/uploads/${pre.upload_token}/${small.sha256}`,
    ]);
    const res = await deployZipByReference(small, tr);
    expect(res.files.sort()).toEqual(["css/site.css", "index.html"]);
    expect((await served(res.slug, "/css/site.css")).toString()).toBe("body{}");
  });
});
