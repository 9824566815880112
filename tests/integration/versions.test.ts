import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { asc, eq, sql } from "drizzle-orm";
import { POST as deployPOST } from "@/app/deploy/route";
import { POST as appendPOST } from "@/app/deploy/[slug]/route";
import { serveGET } from "../support/serve";
import * as dropRoute from "@/app/drops/[slug]/route";
import * as versionsRoute from "@/app/drops/[slug]/versions/route";
import * as rollbackRoute from "@/app/drops/[slug]/rollback/route";
import * as vanityRoute from "@/app/vanity/route";
import * as limitsRoute from "@/app/limits/route";
import { findDropBySlug } from "@/lib/db/queries";
import { contents, dropAliases, dropVersions, drops, files } from "@/lib/db/schema";
import { dropsWithManyVersions, pruneVersions } from "@/lib/db/versions";
import { setPlan } from "@/lib/db/accounts";
import { openDb } from "@/lib/db/client";
import { accountScope } from "@/lib/deploy/contents";
import { getDrop } from "@/lib/drops/manage";
import { runCleanup } from "@/lib/drops/lifecycle";
import { limits } from "@/lib/plans";
import { suiteContext, apiRequest, dropRequest, TEST_SERVE_DOMAIN } from "../support/context";
import { zip } from "../support/zips";
import { accountWithKey, bearer } from "../support/accounts";

// Versions: every write that changes a drop's files makes an immutable version; the drop serves
// its live one; replaced versions keep their bytes until the cleanup job prunes them past the
// plan's versionsKept, and then only contents no retained version uses are purged.

const t = suiteContext({}, { freshLimiter: true });
let ip = 0;
const noParams = { params: Promise.resolve({}) };

type Body = { slug: string; version: number; replaced?: boolean; unchanged?: boolean; total_files?: number };

async function deploy(
  apiKey: string | null,
  filesBody: Record<string, string>,
  query = "",
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Body & Record<string, unknown> }> {
  const res = await deployPOST(
    apiRequest(`/deploy${query}`, {
      method: "POST",
      body: JSON.stringify({ files: filesBody }),
      headers: { "content-type": "application/json", ...(apiKey ? bearer(apiKey) : {}), ...headers },
      ip: `198.51.100.${++ip % 250}`,
    }),
    noParams,
  );
  return { status: res.status, body: (await res.json()) as Body & Record<string, unknown> };
}

async function append(
  apiKey: string,
  slug: string,
  filesBody: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const res = await appendPOST(
    apiRequest(`/deploy/${slug}`, {
      method: "POST",
      body: JSON.stringify({ files: filesBody }),
      headers: { "content-type": "application/json", ...bearer(apiKey), ...headers },
    }),
    { params: Promise.resolve({ slug }) },
  );
  return { status: res.status, body: (await res.json()) as Body & Record<string, unknown> };
}

async function served(slug: string, p = "/"): Promise<{ status: number; text: string }> {
  const res = await serveGET(dropRequest(slug, `/api/serve-drop${p}`));
  return { status: res.status, text: await res.text() };
}

async function servedBytes(label: string, p = "/"): Promise<{ status: number; bytes: Buffer }> {
  const res = await serveGET(dropRequest(label, `/api/serve-drop${p}`));
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

const slugParams = (slug: string) => ({ params: Promise.resolve({ slug }) });

async function listVersionsOf(apiKey: string | null, slug: string, query = "") {
  const res = await versionsRoute.GET(
    apiRequest(`/drops/${slug}/versions${query}`, { headers: apiKey ? bearer(apiKey) : {} }),
    slugParams(slug),
  );
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown> & {
      total: number;
      live_version: number;
      versions: Array<Record<string, unknown>>;
    },
  };
}

async function rollback(apiKey: string | null, slug: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await rollbackRoute.POST(
    apiRequest(`/drops/${slug}/rollback`, {
      method: "POST",
      body: typeof body === "string" ? body : JSON.stringify(body),
      headers: { "content-type": "application/json", ...(apiKey ? bearer(apiKey) : {}), ...headers },
    }),
    slugParams(slug),
  );
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

async function versionRows(slug: string) {
  const drop = await findDropBySlug(t.ctx.db, slug);
  return t.ctx.db
    .select()
    .from(dropVersions)
    .where(eq(dropVersions.dropId, drop!.id))
    .orderBy(asc(dropVersions.version));
}

describe("every write makes a version", () => {
  it("deploy, replace and append are versions 1, 2, 3; the drop serves and reports the live one", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const v1 = await deploy(pro.apiKey, { "index.html": "<p>one</p>", "old.css": "a{}" }, "?name=site");
    expect(v1).toMatchObject({ status: 200, body: { version: 1, replaced: false } });
    const slug = v1.body.slug;
    const v2 = await deploy(pro.apiKey, { "index.html": "<p>two</p>" }, "?name=site");
    expect(v2).toMatchObject({ status: 200, body: { slug, version: 2, replaced: true } });
    expect(v2.body.unchanged).toBeUndefined();
    expect(await served(slug, "/old.css")).toMatchObject({ status: 404 });
    const v3 = await append(pro.apiKey, slug, { "more.html": "<p>more</p>" });
    expect(v3).toMatchObject({ status: 200, body: { slug, version: 3, total_files: 2 } });

    expect((await versionRows(slug)).map((v) => [v.version, v.kind, v.fileCount, v.totalBytes])).toEqual([
      [1, "deploy", 2, 13],
      [2, "replace", 1, 10],
      [3, "append", 2, 21],
    ]);
    const detail = await getDrop(t.ctx, pro.account, slug);
    expect(detail).toMatchObject({ live_version: 3, file_count: 2, total_bytes: 21, redeploy_count: 1 });
    expect(detail.files.map((f) => f.path)).toEqual(["index.html", "more.html"]);
    expect(await served(slug)).toEqual({ status: 200, text: "<p>two</p>" });
    expect(await served(slug, "/more.html")).toEqual({ status: 200, text: "<p>more</p>" });
    // Version 1's bytes stay for a rollback: all four contents are stored.
    expect(await t.ctx.storage.list(`c/${accountScope(pro.account.id)}/`)).toHaveLength(4);
    // Deleting the drop purges the contents of every version.
    const del = await dropRoute.DELETE(
      apiRequest(`/drops/${slug}`, { method: "DELETE", headers: bearer(pro.apiKey) }),
      slugParams(slug),
    );
    expect(del.status).toBe(200);
    expect(await t.ctx.storage.list(`c/${accountScope(pro.account.id)}/`)).toHaveLength(0);
  });

  it("an anonymous or unnamed deploy is version 1", async () => {
    const anon = await deploy(null, { "index.html": "anon" });
    expect(anon).toMatchObject({ status: 200, body: { version: 1 } });
    expect((await versionRows(anon.body.slug)).map((v) => [v.version, v.kind])).toEqual([[1, "deploy"]]);
  });
});

describe("GET /drops/{slug}/versions", () => {
  it("lists the retained versions newest first with time, files, size, kind and the live flag; pages like GET /drops", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const { slug } = (await deploy(pro.apiKey, { "index.html": "a" }, "?name=listed")).body;
    await deploy(pro.apiKey, { "index.html": "bb", "x.css": "x" }, "?name=listed");
    await append(pro.apiKey, slug, { "y.css": "yy" });
    const all = await listVersionsOf(pro.apiKey, slug);
    const vurl = (n: number) => `http://${slug}---v${n}.${TEST_SERVE_DOMAIN}/`;
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    expect(all.body.live_version).toBe(3);
    expect(all.body.versions).toEqual([
      {
        version: 3,
        created_at: expect.any(String),
        file_count: 3,
        total_bytes: 5,
        kind: "append",
        live: true,
        version_url: vurl(3),
      },
      {
        version: 2,
        created_at: expect.any(String),
        file_count: 2,
        total_bytes: 3,
        kind: "replace",
        live: false,
        version_url: vurl(2),
      },
      {
        version: 1,
        created_at: expect.any(String),
        file_count: 1,
        total_bytes: 1,
        kind: "deploy",
        live: false,
        version_url: vurl(1),
      },
    ]);
    const page = await listVersionsOf(pro.apiKey, slug, "?limit=1&offset=1");
    expect(page.body).toMatchObject({ total: 3, live_version: 3, versions: [{ version: 2 }] });
    for (const bad of ["?limit=0", "?limit=501", "?offset=-1", "?limit=x"]) {
      expect((await listVersionsOf(pro.apiKey, slug, bad)).body.code).toBe("invalid_request");
    }
  });

  it("is the owner's only: another account's drop, an anonymous drop and no credential", async () => {
    const owner = await accountWithKey(t.ctx, "pro");
    const other = await accountWithKey(t.ctx, "pro");
    const { slug } = (await deploy(owner.apiKey, { "index.html": "mine" }, "?name=own")).body;
    const anon = (await deploy(null, { "index.html": "anon" })).body.slug;
    expect(await listVersionsOf(other.apiKey, slug)).toMatchObject({ status: 404, body: { code: "not_found" } });
    expect(await listVersionsOf(other.apiKey, anon)).toMatchObject({ status: 404, body: { code: "not_found" } });
    expect(await listVersionsOf(null, slug)).toMatchObject({ status: 401, body: { code: "auth_required" } });
  });
});

describe("POST /drops/{slug}/rollback", () => {
  it("a replace then a rollback serves the old bytes byte-exact on the drop host and the vanity host; rollfore too", async () => {
    const team = await accountWithKey(t.ctx, "team");
    const sub = `vr-${Math.random().toString(36).slice(2, 8)}`;
    const claimed = await vanityRoute.POST(
      apiRequest("/vanity", {
        method: "POST",
        headers: { ...bearer(team.apiKey), "content-type": "application/json" },
        body: JSON.stringify({ sub }),
      }),
      noParams,
    );
    expect(claimed.status).toBe(201);
    const oldBytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7 + 3) % 256));
    const res1 = await deployPOST(
      apiRequest("/deploy?name=app", {
        method: "POST",
        headers: { "content-type": "application/json", ...bearer(team.apiKey) },
        body: JSON.stringify({
          files: {
            "index.html": "<p>old</p>",
            "blob.bin": { encoding: "base64", content: oldBytes.toString("base64") },
          },
        }),
      }),
      noParams,
    );
    const { slug } = (await res1.json()) as { slug: string };
    await deploy(team.apiKey, { "index.html": "<p>broken</p>", "blob.bin": "new" }, "?name=app");
    expect(await served(slug)).toEqual({ status: 200, text: "<p>broken</p>" });

    const back = await rollback(team.apiKey, slug, { version: 1 });
    expect(back).toMatchObject({
      status: 200,
      body: { slug, url: `http://${slug}.drops.localhost:3000/`, live_version: 1 },
    });
    for (const host of [slug, `${sub}--app`]) {
      expect(await served(host)).toEqual({ status: 200, text: "<p>old</p>" });
      const blob = await servedBytes(host, "/blob.bin");
      expect(blob.status).toBe(200);
      expect(blob.bytes.equals(oldBytes)).toBe(true);
    }
    expect((await getDrop(t.ctx, team.account, slug)).live_version).toBe(1);
    expect((await listVersionsOf(team.apiKey, slug)).body.versions.map((v) => [v.version, v.live])).toEqual([
      [2, false],
      [1, true],
    ]);

    // Rollfore: the newer version is retained and can be made live again.
    expect((await rollback(team.apiKey, slug, { version: 2 })).body.live_version).toBe(2);
    expect(await served(`${sub}--app`)).toEqual({ status: 200, text: "<p>broken</p>" });
  });

  it("the next write after a rollback makes max+1 from the live version; an append appends to it", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const { slug } = (await deploy(pro.apiKey, { "index.html": "one", "one.css": "1" }, "?name=next")).body;
    await deploy(pro.apiKey, { "index.html": "two" }, "?name=next");
    await deploy(pro.apiKey, { "index.html": "three" }, "?name=next");
    expect((await rollback(pro.apiKey, slug, { version: 1 })).status).toBe(200);
    const appended = await append(pro.apiKey, slug, { "more.css": "m" });
    expect(appended.body.version).toBe(4);
    const detail = await getDrop(t.ctx, pro.account, slug);
    expect(detail.files.map((f) => f.path)).toEqual(["index.html", "more.css", "one.css"]);
    expect(await served(slug)).toEqual({ status: 200, text: "one" });
  });

  it("readers in parallel with 20 alternating rollbacks see only whole versions", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const a = { "index.html": "<p>A</p>".repeat(50), "app.js": "var v='A';".repeat(40) };
    const b = { "index.html": "<p>B</p>".repeat(70), "app.js": "var v='B';".repeat(60), "only-b.css": "b{}" };
    const { slug } = (await deploy(pro.apiKey, a, "?name=flip")).body;
    await deploy(pro.apiKey, b, "?name=flip");
    const wholes = new Set([a["index.html"], b["index.html"], a["app.js"], b["app.js"]]);
    let flipping = true;
    const seen: string[] = [];
    const readers = Array.from({ length: 4 }, async () => {
      while (flipping) {
        for (const p of ["/", "/app.js"]) {
          const r = await served(slug, p);
          if (r.status !== 200 || !wholes.has(r.text)) {
            flipping = false;
            throw new Error(`a reader saw ${r.status} ${r.text.slice(0, 40)}`);
          }
          seen.push(r.text);
        }
        // A fresh cached manifest answers without I/O: yield so the rollbacks get their turn.
        await new Promise((r) => setImmediate(r));
      }
    });
    try {
      for (let i = 0; i < 20; i++) {
        const r = await rollback(pro.apiKey, slug, { version: i % 2 === 0 ? 1 : 2 });
        expect(r.status).toBe(200);
        expect(r.body.live_version).toBe(i % 2 === 0 ? 1 : 2);
        // In this process a rollback takes effect at once.
        expect((await served(slug)).text).toBe(i % 2 === 0 ? a["index.html"] : b["index.html"]);
        expect((await served(slug, "/only-b.css")).status).toBe(i % 2 === 0 ? 404 : 200);
      }
    } finally {
      flipping = false;
    }
    await Promise.all(readers);
    expect(seen.length).toBeGreaterThan(0);
  });

  it("bad input: non-integer, unknown, pruned versions; another account's drop; an anonymous drop; no credential", async () => {
    const owner = await accountWithKey(t.ctx, "pro");
    const other = await accountWithKey(t.ctx, "pro");
    const { slug } = (await deploy(owner.apiKey, { "index.html": "v1" }, "?name=bad")).body;
    await deploy(owner.apiKey, { "index.html": "v2" }, "?name=bad");
    for (const body of [{ version: 1.5 }, { version: "1" }, {}, { version: null }, "not json", { version: 1e300 }]) {
      expect(await rollback(owner.apiKey, slug, body)).toMatchObject({
        status: 400,
        body: { code: "invalid_request" },
      });
    }
    for (const version of [0, -1, 3, 99, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
      expect(await rollback(owner.apiKey, slug, { version })).toMatchObject({
        status: 404,
        body: { code: "not_found" },
      });
    }
    expect(await rollback(other.apiKey, slug, { version: 1 })).toMatchObject({
      status: 404,
      body: { code: "not_found" },
    });
    const anon = (await deploy(null, { "index.html": "anon" })).body.slug;
    expect(await rollback(owner.apiKey, anon, { version: 1 })).toMatchObject({
      status: 404,
      body: { code: "not_found" },
    });
    expect(await rollback(null, slug, { version: 1 })).toMatchObject({ status: 401, body: { code: "auth_required" } });
    expect(await rollback(owner.apiKey, "no-such-drop-here", { version: 1 })).toMatchObject({
      status: 404,
      body: { code: "not_found" },
    });
    // Nothing moved.
    expect(await served(slug)).toEqual({ status: 200, text: "v2" });

    // A pruned version is gone for good.
    for (let i = 3; i <= 7; i++) await deploy(owner.apiKey, { "index.html": `v${i}` }, "?name=bad");
    await setPlan(t.ctx.db, owner.account.id, "free");
    await runCleanup(t.ctx);
    await setPlan(t.ctx.db, owner.account.id, "pro");
    expect(await rollback(owner.apiKey, slug, { version: 2 })).toMatchObject({
      status: 404,
      body: { code: "not_found" },
    });
    expect((await rollback(owner.apiKey, slug, { version: 3 })).status).toBe(200);
  });

  it("pruning never removes the live version: a rolled-back drop keeps the newest versionsKept and the live one beyond them", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    let slug = "";
    for (let i = 1; i <= 8; i++)
      slug = (await deploy(pro.apiKey, { "index.html": `<p>${i}</p>` }, "?name=keeplive")).body.slug;
    expect((await rollback(pro.apiKey, slug, { version: 1 })).status).toBe(200);
    await setPlan(t.ctx.db, pro.account.id, "free");
    await runCleanup(t.ctx);
    await setPlan(t.ctx.db, pro.account.id, "pro");
    const kept = limits.free.versionsKept;
    expect((await versionRows(slug)).map((v) => v.version)).toEqual([1, ...[4, 5, 6, 7, 8].slice(5 - kept)]);
    expect(await served(slug)).toEqual({ status: 200, text: "<p>1</p>" });
  });
});

describe("If-Match on named deploys and appends", () => {
  it("a stale If-Match answers 409 conflict with live_version and changes nothing; the live one writes", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const { slug } = (await deploy(pro.apiKey, { "index.html": "one" }, "?name=guarded")).body;
    await deploy(pro.apiKey, { "index.html": "two" }, "?name=guarded");
    const scope = `c/${accountScope(pro.account.id)}/`;
    const stored = (await t.ctx.storage.list(scope)).length;
    const before = await versionRows(slug);

    const stale = await deploy(pro.apiKey, { "index.html": "three" }, "?name=guarded", { "if-match": '"1"' });
    expect(stale).toMatchObject({ status: 409, body: { code: "conflict", live_version: 2 } });
    const staleAppend = await append(pro.apiKey, slug, { "more.html": "m" }, { "if-match": '"1"' });
    expect(staleAppend).toMatchObject({ status: 409, body: { code: "conflict", live_version: 2 } });
    expect(await versionRows(slug)).toEqual(before);
    expect(await served(slug)).toEqual({ status: 200, text: "two" });
    expect(await t.ctx.storage.list(scope)).toHaveLength(stored);
    expect((await getDrop(t.ctx, pro.account, slug)).redeploy_count).toBe(1);

    expect(await deploy(pro.apiKey, { "index.html": "three" }, "?name=guarded", { "if-match": '"2"' })).toMatchObject({
      status: 200,
      body: { version: 3, replaced: true },
    });
    expect(await append(pro.apiKey, slug, { "more.html": "m" }, { "if-match": ' "3" ' })).toMatchObject({
      status: 200,
      body: { version: 4 },
    });
  });

  it("a malformed If-Match answers 400 and changes nothing; If-Match needs a name, and a new name has no version", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const { slug } = (await deploy(pro.apiKey, { "index.html": "one" }, "?name=malformed")).body;
    for (const bad of ["1", '"abc"', '"0"', 'W/"1"', "*", '""', '"1.0"', '"01"', '"99999999999"', '"1", "2"']) {
      expect(
        await deploy(pro.apiKey, { "index.html": "x" }, "?name=malformed", { "if-match": bad }),
        bad,
      ).toMatchObject({ status: 400, body: { code: "invalid_request" } });
      expect(await append(pro.apiKey, slug, { "y.html": "y" }, { "if-match": bad }), bad).toMatchObject({
        status: 400,
        body: { code: "invalid_request" },
      });
    }
    expect(await versionRows(slug)).toHaveLength(1);
    expect(await deploy(pro.apiKey, { "index.html": "x" }, "", { "if-match": '"1"' })).toMatchObject({
      status: 400,
      body: { code: "invalid_request" },
    });
    expect(await deploy(pro.apiKey, { "index.html": "x" }, "?name=brand-new", { "if-match": '"1"' })).toMatchObject({
      status: 409,
      body: { code: "conflict" },
    });
    const other = await accountWithKey(t.ctx, "pro");
    expect(await append(other.apiKey, slug, { "y.html": "y" }, { "if-match": '"1"' })).toMatchObject({
      status: 404,
      body: { code: "not_found" },
    });
  });
});

describe("unchanged redeploys", () => {
  it("the same files (as JSON or as a zip) answer unchanged: true with the live version and create nothing", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const site = { "index.html": "<p>same</p>", "a/b.css": "b{}" };
    const { slug } = (await deploy(pro.apiKey, site, "?name=same")).body;
    const again = await deploy(pro.apiKey, site, "?name=same");
    expect(again).toMatchObject({ status: 200, body: { slug, version: 1, unchanged: true, replaced: false } });
    const res = await deployPOST(
      apiRequest("/deploy?name=same", {
        method: "POST",
        body: Buffer.from(zip(site)),
        headers: { "content-type": "application/zip", ...bearer(pro.apiKey) },
      }),
      noParams,
    );
    expect(await res.json()).toMatchObject({ slug, version: 1, unchanged: true });
    expect(await versionRows(slug)).toHaveLength(1);
    expect((await getDrop(t.ctx, pro.account, slug)).redeploy_count).toBe(0);
    // If-Match of the live version and the same files: still unchanged.
    expect((await deploy(pro.apiKey, site, "?name=same", { "if-match": '"1"' })).body).toMatchObject({
      version: 1,
      unchanged: true,
    });
  });

  it("compares with the live version only: files equal to an older retained version make a new version", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const a = { "index.html": "A" };
    const { slug } = (await deploy(pro.apiKey, a, "?name=older")).body;
    await deploy(pro.apiKey, { "index.html": "B" }, "?name=older");
    const back = await deploy(pro.apiKey, a, "?name=older");
    expect(back.body).toMatchObject({ version: 3, replaced: true });
    expect(back.body.unchanged).toBeUndefined();
    // A subset or a superset of the live files is a change.
    expect((await deploy(pro.apiKey, { ...a, "x.css": "x" }, "?name=older")).body.version).toBe(4);
    expect((await deploy(pro.apiKey, a, "?name=older")).body.version).toBe(5);
    expect(await served(slug)).toEqual({ status: 200, text: "A" });
  });
});

describe("GET /drops/{slug} and GET /limits", () => {
  it("GET /drops/{slug} answers what get_drop does, with live_version; owner only", async () => {
    const owner = await accountWithKey(t.ctx, "pro");
    const other = await accountWithKey(t.ctx, "pro");
    const { slug } = (await deploy(owner.apiKey, { "index.html": "x" }, "?name=detail")).body;
    await deploy(owner.apiKey, { "index.html": "xy" }, "?name=detail");
    const res = await dropRoute.GET(apiRequest(`/drops/${slug}`, { headers: bearer(owner.apiKey) }), slugParams(slug));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(await getDrop(t.ctx, owner.account, slug))));
    const again = await dropRoute.GET(
      apiRequest(`/drops/${slug}`, { headers: bearer(owner.apiKey) }),
      slugParams(slug),
    );
    expect(await again.json()).toMatchObject({ live_version: 2, total_bytes: 2 });
    const theirs = await dropRoute.GET(
      apiRequest(`/drops/${slug}`, { headers: bearer(other.apiKey) }),
      slugParams(slug),
    );
    expect(theirs.status).toBe(404);
  });

  it("GET /limits reports versions_kept from the plan table", async () => {
    for (const plan of ["free", "pro", "team"] as const) {
      const { apiKey } = await accountWithKey(t.ctx, plan);
      const res = await limitsRoute.GET(apiRequest("/limits", { headers: bearer(apiKey) }), noParams);
      expect(((await res.json()) as { limits: { versions_kept: number } }).limits.versions_kept).toBe(
        limits[plan].versionsKept,
      );
    }
    const anon = await limitsRoute.GET(apiRequest("/limits"), noParams);
    expect(((await anon.json()) as { limits: { versions_kept: number } }).limits.versions_kept).toBe(
      limits.anonymous.versionsKept,
    );
  });
});

describe("pruning keeps the plan's versionsKept", () => {
  it("keeps exactly versionsKept (the plan's now) and purges only contents no retained version uses", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    let slug = "";
    for (let i = 1; i <= 8; i++) {
      const r = await deploy(
        pro.apiKey,
        { "index.html": `<p>version ${i}</p>`, "shared.css": "body{}" },
        "?name=pruned",
      );
      expect(r.body.version).toBe(i);
      slug = r.body.slug;
    }
    const scope = `c/${accountScope(pro.account.id)}/`;
    // The bytes storage holds for the account's contents, read back through their rows' refs.
    const bytesStored = async () => {
      let n = 0;
      for (const row of await t.ctx.db
        .select()
        .from(contents)
        .where(eq(contents.scope, accountScope(pro.account.id)))) {
        const stream = row.storageRef ? await t.ctx.storage.get(row.storageRef) : null;
        n += stream ? (await new Response(stream).arrayBuffer()).byteLength : 0;
      }
      return n;
    };
    expect(await t.ctx.storage.list(scope)).toHaveLength(9);
    // Pro keeps 100: nothing goes.
    expect(limits.pro.versionsKept).toBe(100);
    await runCleanup(t.ctx);
    expect(await versionRows(slug)).toHaveLength(8);

    // Retention follows the account's plan when the job runs.
    await setPlan(t.ctx.db, pro.account.id, "free");
    const kept = limits.free.versionsKept;
    const result = await runCleanup(t.ctx);
    expect(result.versions_pruned).toBeGreaterThanOrEqual(8 - kept);
    expect((await versionRows(slug)).map((v) => v.version)).toEqual([4, 5, 6, 7, 8].slice(5 - kept));
    const drop = await findDropBySlug(t.ctx.db, slug);
    const [{ n } = { n: -1 }] = await t.ctx.db
      .select({ n: sql<number>`count(distinct ${files.version})::int` })
      .from(files)
      .where(eq(files.dropId, drop!.id));
    expect(n).toBe(kept);
    // The pruned versions' own pages are purged; the shared file and the retained pages stay.
    expect(await t.ctx.storage.list(scope)).toHaveLength(kept + 1);
    expect(await bytesStored()).toBe(
      ["4", "5", "6", "7", "8"].map((i) => `<p>version ${i}</p>`.length).reduce((a, b) => a + b) + "body{}".length,
    );
    expect(await served(slug)).toEqual({ status: 200, text: "<p>version 8</p>" });
    expect(await served(slug, "/shared.css")).toEqual({ status: 200, text: "body{}" });
    // A second run prunes nothing more.
    await runCleanup(t.ctx);
    expect(await versionRows(slug)).toHaveLength(kept);
    await setPlan(t.ctx.db, pro.account.id, "pro");
  });
});

describe("the migration", () => {
  // A drop's site rules before versions existed become version 1's.
  const RULES = { redirects: [{ line: 1, from: "/a", to: "/b", status: 301, force: false }], headers: [] };

  it("makes existing drops' files version 1, live", async () => {
    if (t.hosted) return; // one database engine suffices: the SQL is the same
    const dir = await mkdtemp(path.join(tmpdir(), "dropsite-migrate-"));
    try {
      const folder = path.join(dir, "drizzle");
      await cp(path.join(process.cwd(), "drizzle"), folder, { recursive: true });
      const journalPath = path.join(folder, "meta", "_journal.json");
      const journal = JSON.parse(await readFile(journalPath, "utf8")) as { entries: Array<{ tag: string }> };
      const full = structuredClone(journal);
      // Everything before the versions migration, then the versions migration itself.
      const versionsTag = journal.entries.find((e) => e.tag.endsWith("_versions"))!.tag;
      journal.entries = journal.entries.filter((e) => e.tag < versionsTag);
      await writeFile(journalPath, JSON.stringify(journal));
      const before = await openDb({ dataDir: path.join(dir, "data"), migrationsFolder: folder });
      await before.db.execute(
        sql`insert into drops (id, slug, file_count, total_bytes, redeploy_count, site_rules) values ('d1', 'old-drop', 2, 30, 3, ${JSON.stringify(RULES)}::jsonb)`,
      );
      await before.db.execute(
        sql`insert into files (drop_id, path, size, sha256, content_type, storage_ref, batch) values ('d1', 'index.html', 10, ${"a".repeat(64)}, 'text/html', 'r1', 'b'), ('d1', 'x.css', 20, ${"b".repeat(64)}, 'text/css', 'r2', 'b')`,
      );
      await before.close();
      await writeFile(journalPath, JSON.stringify(full));
      const after = await openDb({ dataDir: path.join(dir, "data"), migrationsFolder: folder });
      try {
        const versions = await after.db.select().from(dropVersions).where(eq(dropVersions.dropId, "d1"));
        expect(versions.map((v) => [v.version, v.kind, v.fileCount, v.totalBytes, v.siteRules])).toEqual([
          [1, "replace", 2, 30, RULES],
        ]);
        const rows = await after.db.select({ version: files.version }).from(files).where(eq(files.dropId, "d1"));
        expect(rows).toEqual([{ version: 1 }, { version: 1 }]);
        const [live] = await after.db.select({ v: drops.liveVersion }).from(drops).where(eq(drops.id, "d1"));
        expect(live?.v).toBe(1);
      } finally {
        await after.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the cleanup job picks only drops with something to prune", () => {
  it("passes over drops held above versionsKept by their live or aliased versions, and pro drops under their own count", async () => {
    const keep = limits.free.versionsKept;
    // Named drops need a paid plan: the first account deploys on pro and is free when the job runs.
    const free = await accountWithKey(t.ctx, "pro");
    const pro = await accountWithKey(t.ctx, "pro");
    const many = async (apiKey: string, name: string, n: number) => {
      let slug = "";
      for (let i = 1; i <= n; i++)
        slug = (await deploy(apiKey, { "index.html": `<p>${name} ${i}</p>` }, `?name=${name}`)).body.slug;
      return (await findDropBySlug(t.ctx.db, slug))!;
    };
    // Free: keep + 2 versions, live back at 1 and an alias on 2: both beyond the newest `keep` are held.
    const held = await many(free.apiKey, "held", keep + 2);
    await t.ctx.db.update(drops).set({ liveVersion: 1 }).where(eq(drops.id, held.id));
    await t.ctx.db.insert(dropAliases).values({ dropId: held.id, name: "old", version: 2 });
    // Pro: more than the fewest any plan keeps, far fewer than its own.
    const proDrop = await many(pro.apiKey, "under", keep + 3);
    // Free: one version beyond the newest `keep` that nothing holds.
    const due = await many(free.apiKey, "due", keep + 1);
    await setPlan(t.ctx.db, free.account.id, "free");
    const keepByTier = Object.fromEntries(Object.entries(limits).map(([tier, l]) => [tier, l.versionsKept])) as Record<
      keyof typeof limits,
      number
    >;
    const picked = (await dropsWithManyVersions(t.ctx.db, keepByTier, 1000)).map((d) => d.id);
    expect(picked).toContain(due.id);
    expect(picked).not.toContain(held.id);
    expect(picked).not.toContain(proDrop.id);
    // What it picks, pruneVersions prunes; what it passes over has nothing pruneVersions would remove.
    expect((await pruneVersions(t.ctx.db, held.id, keep)).pruned).toEqual([]);
    expect((await pruneVersions(t.ctx.db, due.id, keep)).pruned).toEqual([1]);
    expect((await dropsWithManyVersions(t.ctx.db, keepByTier, 1000)).map((d) => d.id)).not.toContain(due.id);
  });
});
