import { describe, expect, it } from "vitest";
import { serveGET } from "../support/serve";
import { countDrops, countFiles } from "@/lib/db/queries";
import { runCleanup } from "@/lib/drops/lifecycle";
import { findContent, pinContents, unpinContents } from "@/lib/db/contents";
import { accountScope, contentKey } from "@/lib/deploy/contents";
import { sha256Hex } from "@/lib/ids";
import { preflightResponseSchema } from "@/lib/schemas";
import { suiteContext, dropRequest } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { preflightFiles as preflight, uploadTo as upload, deployFiles as deploy } from "../support/deploy";

// The upload protocol: preflight by hash, PUT the missing contents, deploy by reference.

const t = suiteContext({}, { freshLimiter: true });

const enc = (s: string) => new TextEncoder().encode(s);
const refOf = (s: string) => ({ sha256: sha256Hex(enc(s)), size: enc(s).byteLength });

async function preflightOk(
  files: Record<string, { sha256: string; size: number }>,
  headers: Record<string, string> = {},
) {
  const res = await preflight(files, headers);
  const body = await res.json();
  expect({ status: res.status, body }).toMatchObject({ status: 200 });
  return preflightResponseSchema.parse(body);
}

async function served(slug: string, path: string) {
  const res = await serveGET(dropRequest(slug, `/api/serve-drop${path}`));
  return { status: res.status, text: await res.text() };
}

describe("preflight, upload, deploy by reference", () => {
  it("an account uploads only what it lacks, then deploys by reference", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const first = await deploy({ "index.html": "<h1>old</h1>", "app.js": "console.log(1)" }, bearer(a.apiKey));
    expect(first.status).toBe(200);
    const files = {
      "index.html": refOf("<h1>new</h1>"),
      "app.js": refOf("console.log(1)"),
      "data.json": refOf('{"a":1}'),
    };
    const pre = await preflightOk(files, bearer(a.apiKey));
    expect(pre.missing.sort()).toEqual([refOf("<h1>new</h1>").sha256, refOf('{"a":1}').sha256].sort());
    expect(pre.uploads.map((u) => u.method)).toEqual(["PUT", "PUT"]);
    const bytesOf: Record<string, string> = {
      [refOf("<h1>new</h1>").sha256]: "<h1>new</h1>",
      [refOf('{"a":1}').sha256]: '{"a":1}',
    };
    for (const u of pre.uploads) {
      const res = await upload(u.url, enc(bytesOf[u.sha256]!));
      expect(res.status).toBe(201);
    }
    const res = await deploy(files, bearer(a.apiKey));
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(await served(body.slug, "/")).toEqual({ status: 200, text: "<h1>new</h1>" });
    expect(await served(body.slug, "/data.json")).toEqual({ status: 200, text: '{"a":1}' });
  });

  it("dedup never crosses accounts: B is told to upload what A holds", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const b = await accountWithKey(t.ctx, "free");
    expect((await deploy({ "index.html": "<p>A's secret page</p>" }, bearer(a.apiKey))).status).toBe(200);
    const pre = await preflightOk({ "index.html": refOf("<p>A's secret page</p>") }, bearer(b.apiKey));
    expect(pre.missing).toEqual([refOf("<p>A's secret page</p>").sha256]);
    // And B cannot deploy by a reference to A's content.
    const before = await countDrops(t.ctx.db);
    const res = await deploy({ "index.html": refOf("<p>A's secret page</p>") }, bearer(b.apiKey));
    expect(res.status).toBe(400);
    expect(await countDrops(t.ctx.db)).toBe(before);
  });

  it("a wrong-hash or wrong-size upload answers 400 and stores nothing", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const pre = await preflightOk({ "index.html": refOf("right bytes") }, bearer(a.apiKey));
    const target = pre.uploads[0]!;
    const wrong = await upload(target.url, enc("wrong bytes"));
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).code).toBe("invalid_request");
    const longer = await upload(target.url, enc("right bytes, and more"));
    expect(longer.status).toBe(400);
    expect(await t.ctx.storage.list(`c/${accountScope(a.account.id)}/`)).toEqual([]);
    const deployed = await deploy({ "index.html": refOf("right bytes") }, bearer(a.apiKey));
    expect(deployed.status).toBe(400);
    expect((await upload(target.url, enc("right bytes"))).status).toBe(201);
    expect(await t.ctx.storage.list(`c/${accountScope(a.account.id)}/`)).toEqual([
      contentKey(accountScope(a.account.id), target.sha256),
    ]);
  });

  it("a reference never uploaded answers 400 with a hint and the hash; nothing is created", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const ghost = "f".repeat(64);
    const [drops, files] = [await countDrops(t.ctx.db), await countFiles(t.ctx.db)];
    const res = await deploy({ "index.html": "inline", "ghost.bin": { sha256: ghost, size: 10 } }, bearer(a.apiKey));
    const body = await res.json();
    expect({ status: res.status, code: body.code }).toEqual({ status: 400, code: "invalid_request" });
    expect(body.unusable).toEqual([ghost]);
    expect(typeof body.hint).toBe("string");
    expect([await countDrops(t.ctx.db), await countFiles(t.ctx.db)]).toEqual([drops, files]);
    expect(await t.ctx.storage.list(`c/${accountScope(a.account.id)}/`)).toEqual([]);
  });

  it("anonymous uploads are scoped to their preflight's token and expire unused", async () => {
    const files = { "index.html": refOf("<p>anon</p>") };
    const pre = await preflightOk(files);
    expect((await upload(pre.uploads[0]!.url, enc("<p>anon</p>"))).status).toBe(201);
    // Without the token (or with another preflight's) the reference is unusable.
    expect((await deploy(files)).status).toBe(400);
    const other = await preflightOk({ "x.txt": refOf("x") });
    expect((await deploy(files, { "x-upload-token": other.upload_token })).status).toBe(400);
    const res = await deploy(files, { "x-upload-token": pre.upload_token });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(await served(body.slug, "/")).toEqual({ status: 200, text: "<p>anon</p>" });
    // Past the stated time, the targets answer 404.
    const late = await preflightOk({ "late.txt": refOf("late") });
    t.clock.advance(3601);
    expect((await upload(late.uploads[0]!.url, enc("late"))).status).toBe(404);
    expect((await deploy({ "late.txt": refOf("late") }, { "x-upload-token": late.upload_token })).status).toBe(400);
  });

  it("the cleanup job purges uploads no deploy used once their hold has passed, and keeps used ones", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const scope = accountScope(a.account.id);
    const pre = await preflightOk({ "used.txt": refOf("used"), "unused.txt": refOf("unused") }, bearer(a.apiKey));
    for (const u of pre.uploads)
      expect((await upload(u.url, enc(u.sha256 === refOf("used").sha256 ? "used" : "unused"))).status).toBe(201);
    expect((await deploy({ "used.txt": refOf("used") }, bearer(a.apiKey))).status).toBe(200);
    await runCleanup(t.ctx);
    expect(await t.ctx.storage.list(`c/${scope}/`)).toHaveLength(2);
    t.clock.advance(3601);
    await runCleanup(t.ctx);
    expect(await t.ctx.storage.list(`c/${scope}/`)).toEqual([contentKey(scope, refOf("used").sha256)]);
  });

  it("the cleanup job purges contents rows left without bytes by a request cut off midway, and bytes at their key", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const scope = accountScope(a.account.id);
    const { sha256 } = refOf("cut off");
    // As a deploy that pinned, wrote its bytes and lost the database before marking them stored.
    await pinContents(t.ctx.db, scope, [{ sha256, size: enc("cut off").byteLength }], new Date(t.clock.now));
    await t.ctx.storage.put(contentKey(scope, sha256), enc("cut off"), "application/octet-stream");
    await runCleanup(t.ctx);
    expect(await findContent(t.ctx.db, scope, sha256)).toBeDefined(); // still pinned by a live request
    await unpinContents(t.ctx.db, scope, [sha256]);
    await runCleanup(t.ctx);
    expect(await findContent(t.ctx.db, scope, sha256)).toBeUndefined();
    if (!t.hosted) expect(await t.ctx.storage.list(`c/${scope}/`)).toEqual([]);
  });

  it("preflight applies the deploy's path rules and caps", async () => {
    const r = refOf("x");
    const bad = await preflight({ "../evil.html": r });
    expect({ status: bad.status, code: (await bad.json()).code }).toEqual({ status: 400, code: "invalid_request" });
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}.txt`, r]));
    const capped = await preflight(many);
    const viaDeploy = await deploy(Object.fromEntries(Object.keys(many).map((k) => [k, "x"])));
    expect(capped.status).toBe(viaDeploy.status);
    expect((await capped.json()).code).toBe((await viaDeploy.json()).code);
    const huge = await preflight({ "big.bin": { sha256: r.sha256, size: 1024 * 1024 * 1024 } });
    expect(huge.status).toBe(413);
  });
});
