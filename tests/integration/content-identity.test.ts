import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { serveGET } from "../support/serve";
import { contents, drops, files, uploadGrants } from "@/lib/db/schema";
import { accountScope, contentKey } from "@/lib/deploy/contents";
import { uploadContent } from "@/lib/deploy/uploads";
import { sha256Hex } from "@/lib/ids";
import { preflightResponseSchema } from "@/lib/schemas";
import { startDataPlane, type RunningPlane } from "../support/plane";
import { suiteContext, dropRequest, TEST_SERVE_DOMAIN } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { preflightFiles as preflight, uploadTo as upload, deployFiles as deploy } from "../support/deploy";

// A content is its SHA-256 and its size (issue 23, "response injection on drop hosts"): bytes
// are accepted only when both match what was declared, one hash never carries two sizes, a
// stored object is checked against its row before a drop uses it by reference, and the serve
// path never writes more or fewer bytes than the Content-Length it sent. Nothing in memory is
// served here (SERVE_CACHE_BYTES=0), so every file streams from storage as large files do.

const t = suiteContext({ SERVE_CACHE_BYTES: "0" }, { freshLimiter: true });

const enc = (s: string) => new TextEncoder().encode(s);
const refOf = (b: Uint8Array) => ({ sha256: sha256Hex(b), size: b.byteLength });
/** What the attack appended: a whole HTTP response, for a proxy reusing the connection to take as the next one. */
const INJECTED = "HTTP/1.1 200 OK\r\nContent-Length: 9\r\nContent-Type: text/html\r\n\r\n<p>own</p>";

/** Every row and object a refused request could have touched. */
async function snapshot() {
  const db = t.ctx.db;
  return {
    drops: (
      await db.select({ id: drops.id, fileCount: drops.fileCount, totalBytes: drops.totalBytes }).from(drops)
    ).sort((a, b) => (a.id < b.id ? -1 : 1)),
    files: (await db.select({ dropId: files.dropId, path: files.path, size: files.size }).from(files)).length,
    contents: (await db.select().from(contents))
      .map((c) => `${c.scope}/${c.sha256} ${c.size} ${c.storageRef} ${c.holdUntil?.toISOString()} ${c.pins}`)
      .sort(),
    grants: (await db.select().from(uploadGrants)).length,
    stored: (await t.ctx.storage.list("")).sort(),
  };
}

async function refusedWithoutTrace(run: () => Promise<Response>, status: number, code: string) {
  const before = await snapshot();
  const res = await run();
  const body = (await res.json()) as { code: string; error: string; unusable?: string[] };
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(await snapshot()).toEqual(before);
  return body;
}

/** Raw bytes off one kept-alive connection that asks for each path in turn (pipelined). */
async function pipelined(port: number, host: string, paths: string[]): Promise<Buffer> {
  return new Promise((resolve) => {
    const sock = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    sock.on("data", (d: Buffer) => chunks.push(d));
    const done = () => resolve(Buffer.concat(chunks));
    sock.on("close", done);
    sock.on("error", done);
    sock.write(paths.map((p) => `GET ${p} HTTP/1.1\r\nHost: ${host}\r\n\r\n`).join(""));
    setTimeout(() => sock.end(), 3000).unref();
  });
}

let plane: RunningPlane;
let port: number;
beforeAll(async () => {
  plane = await startDataPlane();
  port = plane.port;
});
afterAll(() => plane.close());

describe("bytes are accepted only when hash and size both match", () => {
  it("found: upload_content without a token after a preflight with a wrong size; the declared size no longer references the bytes", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const real = enc(`${"x".repeat(300)}${INJECTED}`);
    const { sha256 } = refOf(real);
    const declared = real.byteLength - INJECTED.length;
    // The preflight states a size the bytes do not have.
    const pre = preflightResponseSchema.parse(
      await (await preflight({ "big.bin": { sha256, size: declared } }, bearer(a.apiKey))).json(),
    );
    expect(pre.missing).toEqual([sha256]);
    // Without a token the bytes decide: they are stored with their own size.
    expect(await uploadContent(t.ctx, { account: a.account }, { sha256, bytes: real }, "203.0.113.7")).toEqual({
      sha256,
      size: real.byteLength,
    });
    const [row] = await t.ctx.db.select().from(contents).where(eq(contents.sha256, sha256));
    expect({ size: row?.size, stored: row?.storageRef !== null }).toEqual({ size: real.byteLength, stored: true });
    // A deploy naming the hash with the declared size is refused; the real size deploys.
    const body = await refusedWithoutTrace(
      () => deploy({ "big.bin": { sha256, size: declared } }, bearer(a.apiKey)),
      400,
      "invalid_request",
    );
    expect(body.unusable).toEqual([sha256]);
    const ok = await deploy({ "big.bin": { sha256, size: real.byteLength } }, bearer(a.apiKey));
    expect(ok.status).toBe(200);
  });

  it("an upload target takes exactly the declared bytes: a longer body with the same prefix is refused and stores nothing", async () => {
    const real = enc("<h1>exact</h1>");
    const pre = preflightResponseSchema.parse(await (await preflight({ "index.html": refOf(real) })).json());
    const longer = new Uint8Array([...real, ...enc(INJECTED)]);
    await refusedWithoutTrace(() => upload(pre.uploads[0]!.url, longer), 400, "invalid_request");
    expect((await upload(pre.uploads[0]!.url, real)).status).toBe(201);
  });

  it("a deploy naming one hash with two sizes is 400 invalid_request and changes nothing", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const bytes = enc("<p>one content</p>");
    expect((await deploy({ "index.html": "<p>one content</p>" }, bearer(a.apiKey))).status).toBe(200);
    const ref = refOf(bytes);
    await refusedWithoutTrace(
      () => deploy({ "a.html": ref, "b.html": { ...ref, size: ref.size + 76 } }, bearer(a.apiKey)),
      400,
      "invalid_request",
    );
    // Inline bytes of the hash with a reference of another size: the same.
    await refusedWithoutTrace(
      () => deploy({ "a.html": "<p>one content</p>", "b.html": { ...ref, size: ref.size + 76 } }, bearer(a.apiKey)),
      400,
      "invalid_request",
    );
  });

  it("a stored object that is not the size of its row is refused as a reference before any drop uses it", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const bytes = enc("<p>stored once</p>");
    expect((await deploy({ "index.html": "<p>stored once</p>" }, bearer(a.apiKey))).status).toBe(200);
    // The object changes behind the app's back (another writer, a restore from a backup).
    await t.ctx.storage.put(
      contentKey(accountScope(a.account.id), sha256Hex(bytes)),
      enc(`<p>stored once</p>${INJECTED}`),
      "application/octet-stream",
    );
    const body = await refusedWithoutTrace(
      () => deploy({ "index.html": refOf(bytes) }, bearer(a.apiKey)),
      400,
      "invalid_request",
    );
    expect(body.unusable).toEqual([sha256Hex(bytes)]);
  });
});

describe("one hash, one size in preflights", () => {
  it("a preflight naming one hash with two sizes is 400 invalid_request and changes nothing", async () => {
    const ref = refOf(enc("same"));
    await refusedWithoutTrace(
      () => preflight({ "a.txt": ref, "b.txt": { ...ref, size: ref.size + 1 } }),
      400,
      "invalid_request",
    );
  });

  it("found: a declared size that no bytes matched does not bind the next preflight, nor push its hold further", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const real = new Uint8Array(5000).fill(7);
    const { sha256 } = refOf(real);
    const first = preflightResponseSchema.parse(
      await (await preflight({ "f.bin": { sha256, size: 5007 } }, bearer(a.apiKey))).json(),
    );
    expect(first.missing).toEqual([sha256]);
    // A PUT of the real bytes to the wrong preflight's target is refused (the size differs).
    expect((await upload(first.uploads[0]!.url, real)).status).toBe(400);
    t.clock.advance(10 * 60);
    const second = preflightResponseSchema.parse(
      await (await preflight({ "f.bin": { sha256, size: 5000 } }, bearer(a.apiKey))).json(),
    );
    expect(second.missing).toEqual([sha256]);
    const [row] = await t.ctx.db.select().from(contents).where(eq(contents.sha256, sha256));
    // The row is the corrected declaration, held until the corrected preflight's end, not later.
    expect({ size: row?.size, hold: row?.holdUntil?.toISOString() }).toEqual({ size: 5000, hold: second.expires_at });
    expect((await upload(second.uploads[0]!.url, real)).status).toBe(201);
    // Once bytes are stored they decide: a preflight with another size is refused and holds nothing longer.
    t.clock.advance(10 * 60);
    await refusedWithoutTrace(
      () => preflight({ "f.bin": { sha256, size: 5007 } }, bearer(a.apiKey)),
      400,
      "invalid_request",
    );
    const res = await deploy({ "f.bin": { sha256, size: 5000 } }, bearer(a.apiKey));
    expect(res.status).toBe(200);
  });
});

describe("the serve path never writes past the Content-Length it sent", () => {
  async function dropWithTamperedFile(extra: string | null) {
    const a = await accountWithKey(t.ctx, "free");
    // Several read chunks: the first ones go out (with the head) before the surplus shows.
    const big = "b".repeat(200_000);
    const res = await deploy({ "big.bin": big, "second.html": "<p>second</p>" }, bearer(a.apiKey));
    const { slug } = (await res.json()) as { slug: string };
    const key = contentKey(accountScope(a.account.id), sha256Hex(enc(big)));
    await t.ctx.storage.put(key, enc(extra === null ? big.slice(0, 100_000) : big + extra), "application/octet-stream");
    return { slug, size: big.length };
  }

  it("found: stored bytes longer than the row end the connection after Content-Length bytes; no second response follows (listener)", async () => {
    const { slug, size } = await dropWithTamperedFile(INJECTED);
    const out = await pipelined(port, `${slug}.${TEST_SERVE_DOMAIN}`, ["/big.bin", "/second.html"]);
    const text = out.toString("latin1");
    const head = text.slice(0, text.indexOf("\r\n\r\n") + 4);
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    expect(head).toContain(`Content-Length: ${size}`);
    // At most the announced bytes, never the injected response, and nothing after them on this connection.
    expect(out.byteLength - Buffer.byteLength(head, "latin1")).toBeLessThanOrEqual(size);
    expect(text).not.toContain("<p>own</p>");
    expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });

  it("stored bytes shorter than the row end the connection instead of leaving it waiting (listener)", async () => {
    const { slug, size } = await dropWithTamperedFile(null);
    const out = await pipelined(port, `${slug}.${TEST_SERVE_DOMAIN}`, ["/big.bin", "/second.html"]);
    const text = out.toString("latin1");
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text).toContain(`Content-Length: ${size}`);
    expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });

  it("the serve route's response errors instead of carrying more bytes than its Content-Length", async () => {
    const { slug, size } = await dropWithTamperedFile(INJECTED);
    const res = await serveGET(dropRequest(slug, "/api/serve-drop/big.bin"));
    expect({ status: res.status, length: res.headers.get("content-length") }).toEqual({
      status: 200,
      length: String(size),
    });
    await expect(res.arrayBuffer()).rejects.toThrow();
  });
});
