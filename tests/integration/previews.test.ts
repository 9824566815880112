import { brotliDecompressSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import { POST as appendPOST } from "@/app/deploy/[slug]/route";
import * as dropRoute from "@/app/drops/[slug]/route";
import * as versionsRoute from "@/app/drops/[slug]/versions/route";
import * as rollbackRoute from "@/app/drops/[slug]/rollback/route";
import { events } from "@/lib/db/schema";
import { listDrops } from "@/lib/drops/manage";
import { setAccess } from "@/lib/drops/access";
import { disableDrop } from "@/lib/admin/actions";
import { setPlan } from "@/lib/db/accounts";
import { runCleanup } from "@/lib/drops/lifecycle";
import { serveRequest } from "@/lib/serve";
import { UNLOCK_PATH } from "@/lib/serve/access";
import { accountWithKey, bearer } from "../support/accounts";
import { apiRequest, dropRequest, suiteContext, TEST_SERVE_DOMAIN } from "../support/context";
import { registerSecret } from "../support/secrets";

// Preview hosts (DESIGN round 5, "Previews"): `<slug>---v<N>` serves retained version N exactly as
// the live host would serve it (its files, rules, 404.html, ETag, ranges, compression), with
// noindex on every answer; a version no longer kept answers the service's small 404 page; a
// disabled drop answers 451; an unlock cookie is good on the host it was issued for only.

const t = suiteContext({}, { freshLimiter: true });
const noParams = { params: Promise.resolve({}) };
let ip = 0;

async function deploy(apiKey: string, files: Record<string, string>, query: string) {
  const res = await deployPOST(
    apiRequest(`/deploy${query}`, {
      method: "POST",
      body: JSON.stringify({ files }),
      headers: { "content-type": "application/json", ...bearer(apiKey) },
      ip: `198.51.100.${++ip % 250}`,
    }),
    noParams,
  );
  const body = (await res.json()) as { slug: string; version: number } & Record<string, unknown>;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

async function visit(label: string, path: string, headers: Record<string, string> = {}, method = "GET") {
  const res = await serveRequest(
    t.ctx,
    dropRequest(label, path, { method, headers: { "x-dropsite-socket-ip": "198.51.100.7", ...headers } }),
  );
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: bytes.toString("utf8") };
}

const ONE = {
  "index.html": "<h1>version one</h1>",
  "404.html": "<h1>one's missing page</h1>",
  "style.css": `p{color:red}${" ".repeat(2000)}/* one */`,
  "docs/index.html": "<p>docs one</p>",
  _redirects: "/old /docs/ 301\n",
  _headers: "/*\n  X-Version: one\n",
};
const TWO = { "index.html": "<h1>version two</h1>", "app.html": "<p>spa two</p>", _redirects: "/* /app.html 200\n" };

/** A pro account's named drop with versions 1 (ONE) and 2 (TWO, live). */
async function twoVersions() {
  const owner = await accountWithKey(t.ctx, "pro");
  const name = `pv-${Math.random().toString(36).slice(2, 8)}`;
  const { slug } = await deploy(owner.apiKey, ONE, `?name=${name}`);
  expect((await deploy(owner.apiKey, TWO, `?name=${name}`)).version).toBe(2);
  return { owner, slug };
}

describe("a preview host serves its version exactly as live would", () => {
  it("v1 and v2 serve their own files, rules and 404.html; the live host serves v2; every preview answer is noindex", async () => {
    const { slug } = await twoVersions();
    const live = await visit(slug, "/");
    expect(live.text).toBe("<h1>version two</h1>");
    expect(live.headers.get("x-robots-tag")).toBeNull();

    const v1 = `${slug}---v1`;
    const home = await visit(v1, "/");
    expect(home).toMatchObject({ status: 200, text: "<h1>version one</h1>" });
    expect(home.headers.get("x-robots-tag")).toBe("noindex");
    // version one's _headers and _redirects, not two's
    expect(home.headers.get("x-version")).toBe("one");
    expect(home.headers.get("x-robots-tag")).toBe("noindex");
    const moved = await visit(v1, "/old");
    expect(moved.status).toBe(301);
    expect(moved.headers.get("location")).toBe("/docs/");
    expect(moved.headers.get("x-robots-tag")).toBe("noindex");
    const folder = await visit(v1, "/docs");
    expect([folder.status, folder.headers.get("location")]).toEqual([308, "/docs/"]);
    expect(folder.headers.get("x-robots-tag")).toBe("noindex");
    const missing = await visit(v1, "/nope");
    expect(missing).toMatchObject({ status: 404, text: "<h1>one's missing page</h1>" });
    expect(missing.headers.get("x-robots-tag")).toBe("noindex");

    const v2 = `${slug}---v2`;
    expect(await visit(v2, "/")).toMatchObject({ status: 200, text: "<h1>version two</h1>" });
    // version two's SPA rule answers any path with app.html; version one's file is not there
    expect(await visit(v2, "/style.css")).toMatchObject({ status: 200, text: "<p>spa two</p>" });
    expect((await visit(v2, "/anything")).headers.get("x-robots-tag")).toBe("noindex");
  });

  it("ETag and 304, ranges and compression as on the live host", async () => {
    const { slug } = await twoVersions();
    const v1 = `${slug}---v1`;
    const css = await visit(v1, "/style.css");
    expect(css.text).toBe(ONE["style.css"]);
    const etag = css.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect((await visit(v1, "/style.css", { "if-none-match": etag })).status).toBe(304);
    const part = await visit(v1, "/style.css", { range: "bytes=0-11" });
    expect([part.status, part.text, part.headers.get("content-range")]).toEqual([
      206,
      "p{color:red}",
      `bytes 0-11/${ONE["style.css"].length}`,
    ]);
    const br = await visit(v1, "/style.css", { "accept-encoding": "br" });
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(brotliDecompressSync(br.bytes).toString("utf8")).toBe(ONE["style.css"]);
    expect(br.headers.get("x-robots-tag")).toBe("noindex");
    const head = await visit(v1, "/", {}, "HEAD");
    expect([head.status, head.bytes.byteLength, head.headers.get("content-length")]).toEqual([200, 0, "20"]);
  });
});

describe("a preview host that names nothing kept", () => {
  it("a pruned version, one never made, v0, v01 and a huge number answer the small 404 page, no drop bytes", async () => {
    const { owner, slug } = await twoVersions();
    // seven versions, then the free plan's five kept: versions 1 and 2 are pruned
    const name = `pr-${Math.random().toString(36).slice(2, 8)}`;
    const first = await deploy(owner.apiKey, { "index.html": "<p>kept? no</p>" }, `?name=${name}`);
    for (let i = 2; i <= 7; i++) await deploy(owner.apiKey, { "index.html": `<p>n${i}</p>` }, `?name=${name}`);
    expect((await visit(`${first.slug}---v1`, "/")).text).toBe("<p>kept? no</p>");
    await setPlan(t.ctx.db, owner.account.id, "free");
    await runCleanup(t.ctx);
    await setPlan(t.ctx.db, owner.account.id, "pro");
    const pruned = await visit(`${first.slug}---v1`, "/");
    expect(pruned.status).toBe(404);
    expect(pruned.text).toContain("Version 1 of this drop is no longer kept");
    expect(pruned.text).not.toContain("kept? no");
    expect(pruned.headers.get("x-robots-tag")).toBe("noindex");
    expect(pruned.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect((await visit(`${first.slug}---v3`, "/")).text).toBe("<p>n3</p>");

    const never = await visit(`${slug}---v9`, "/");
    expect(never.status).toBe(404);
    expect(never.text).toContain("Version 9 of this drop is no longer kept");
    for (const label of [`${slug}---v0`, `${slug}---v01`, `${slug}---v${"9".repeat(20)}`]) {
      const r = await visit(label, "/");
      expect(r.status, label).toBe(404);
      expect(r.text, label).not.toContain("version");
      expect(r.headers.get("x-robots-tag"), label).toBe("noindex");
    }
    const noAlias = await visit(`${slug}---staging`, "/");
    expect(noAlias.status).toBe(404);
    expect(noAlias.text).toContain("No preview named staging");
    // a drop that does not exist: the plain 404
    const absent = await visit("zzzzzzzzzzzzzzzzzzzz---v1", "/");
    expect(absent.status).toBe(404);
    expect(absent.text).toContain("There is nothing at this address.");
  });

  it("a disabled drop answers 451 on every preview host, kept or not", async () => {
    const { slug } = await twoVersions();
    expect((await visit(`${slug}---v1`, "/")).status).toBe(200);
    await disableDrop(t.ctx, { id: "test" }, slug, { reason: "spam" });
    for (const label of [slug, `${slug}---v1`, `${slug}---v2`, `${slug}---v9`]) {
      const r = await visit(label, "/");
      expect(r.status, label).toBe(451);
      expect(r.text, label).not.toContain("version one");
    }
  });
});

describe("access is host by host", () => {
  const PASSWORD = "preview password 1";
  registerSecret("drop password", PASSWORD);

  async function unlock(label: string) {
    const res = await serveRequest(
      t.ctx,
      dropRequest(label, UNLOCK_PATH, {
        method: "POST",
        body: new URLSearchParams({ password: PASSWORD, path: "/" }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", "x-dropsite-socket-ip": "198.51.100.9" },
      }),
    );
    expect(res.status).toBe(303);
    return res.headers.get("set-cookie")!.split(";")[0]!;
  }

  it("a cookie from the live host is refused on a preview host, and one from a preview host everywhere else", async () => {
    const { owner, slug } = await twoVersions();
    await setAccess(t.ctx, owner.account, slug, { mode: "password", password: PASSWORD });
    const locked = await visit(`${slug}---v1`, "/");
    expect(locked.status).toBe(401);
    expect(locked.text).not.toContain("version one");
    expect(locked.headers.get("x-robots-tag")).toBe("noindex");

    const liveCookie = await unlock(slug);
    expect((await visit(slug, "/", { cookie: liveCookie })).text).toBe("<h1>version two</h1>");
    expect((await visit(`${slug}---v1`, "/", { cookie: liveCookie })).status).toBe(401);

    const previewCookie = await unlock(`${slug}---v1`);
    const opened = await visit(`${slug}---v1`, "/", { cookie: previewCookie });
    expect(opened).toMatchObject({ status: 200, text: "<h1>version one</h1>" });
    expect(opened.headers.get("cache-control")).toMatch(/^private/);
    expect(opened.headers.get("x-robots-tag")).toBe("noindex");
    expect((await visit(slug, "/", { cookie: previewCookie })).status).toBe(401);
    expect((await visit(`${slug}---v2`, "/", { cookie: previewCookie })).status).toBe(401);
  });
});

describe("version_url names each version's preview host", () => {
  const url = (slug: string, n: number) => `http://${slug}---v${n}.${TEST_SERVE_DOMAIN}/`;

  it("in the deploy, replace and append answers, the versions list and GET /drops/{slug}", async () => {
    const owner = await accountWithKey(t.ctx, "pro");
    const name = `vu-${Math.random().toString(36).slice(2, 8)}`;
    const first = await deploy(owner.apiKey, { "index.html": "<p>1</p>" }, `?name=${name}`);
    expect(first.version_url).toBe(url(first.slug, 1));
    const second = await deploy(owner.apiKey, { "index.html": "<p>2</p>" }, `?name=${name}`);
    expect(second.version_url).toBe(url(first.slug, 2));
    const appended = await appendPOST(
      apiRequest(`/deploy/${first.slug}`, {
        method: "POST",
        body: JSON.stringify({ files: { "more.html": "<p>more</p>" } }),
        headers: { "content-type": "application/json", ...bearer(owner.apiKey) },
      }),
      { params: Promise.resolve({ slug: first.slug }) },
    );
    expect(await appended.json()).toMatchObject({ version: 3, version_url: url(first.slug, 3) });
    const list = await versionsRoute.GET(
      apiRequest(`/drops/${first.slug}/versions`, { headers: bearer(owner.apiKey) }),
      { params: Promise.resolve({ slug: first.slug }) },
    );
    const body = (await list.json()) as { versions: { version: number; version_url: string }[] };
    expect(body.versions.map((v) => [v.version, v.version_url])).toEqual([
      [3, url(first.slug, 3)],
      [2, url(first.slug, 2)],
      [1, url(first.slug, 1)],
    ]);
    const detail = await dropRoute.GET(apiRequest(`/drops/${first.slug}`, { headers: bearer(owner.apiKey) }), {
      params: Promise.resolve({ slug: first.slug }),
    });
    expect(await detail.json()).toMatchObject({ live_version: 3, version_url: url(first.slug, 3) });
    // and each of them serves what it names
    expect((await visit(`${first.slug}---v2`, "/")).text).toBe("<p>2</p>");
  });

  it("an anonymous deploy's answer carries version 1's URL", async () => {
    const res = await deployPOST(
      apiRequest("/deploy", {
        method: "POST",
        body: JSON.stringify({ files: { "index.html": "anon" } }),
        headers: { "content-type": "application/json" },
        ip: "198.51.100.77",
      }),
      noParams,
    );
    const body = (await res.json()) as { slug: string; version_url: string };
    expect(body.version_url).toBe(url(body.slug, 1));
  });
});

describe("names with --- are refused", () => {
  it("?name= with three hyphens in a row answers 400 invalid_name and creates nothing; two are fine", async () => {
    const owner = await accountWithKey(t.ctx, "pro");
    for (const name of ["a---b", "site---v2", "x----"]) {
      const res = await deployPOST(
        apiRequest(`/deploy?name=${name}`, {
          method: "POST",
          body: JSON.stringify({ files: { "index.html": "x" } }),
          headers: { "content-type": "application/json", ...bearer(owner.apiKey) },
        }),
        noParams,
      );
      expect(res.status, name).toBe(400);
      expect(((await res.json()) as { code: string }).code, name).toBe("invalid_name");
    }
    expect(await listDrops(t.ctx, owner.account, { limit: 10, offset: 0 })).toMatchObject({ total: 0 });
    expect((await deploy(owner.apiKey, { "index.html": "x" }, "?name=a--b-")).version).toBe(1);
  });
});

describe("staged deploys: promote=false", () => {
  async function eventsOf(slug: string) {
    const rows = await t.ctx.db.select().from(events);
    return rows
      .filter((e) => (e.data as { slug?: string }).slug === slug)
      .map((e): Record<string, unknown> => ({ type: e.type, ...e.data }))
      .sort((a, b) => Number(a.version) - Number(b.version));
  }

  it("a staged replace makes a version that is not live; the live host keeps serving; rollback promotes it", async () => {
    const owner = await accountWithKey(t.ctx, "pro");
    const name = `st-${Math.random().toString(36).slice(2, 8)}`;
    const first = await deploy(owner.apiKey, { "index.html": "<p>live one</p>" }, `?name=${name}&promote=false`);
    // a first deploy is always live
    expect(first).toMatchObject({ version: 1, live_version: 1, promoted: true });
    const slug = first.slug;
    const staged = await deploy(owner.apiKey, { "index.html": "<p>staged two</p>" }, `?name=${name}&promote=false`);
    expect(staged).toMatchObject({
      slug,
      version: 2,
      live_version: 1,
      promoted: false,
      replaced: true,
      version_url: `http://${slug}---v2.${TEST_SERVE_DOMAIN}/`,
    });
    expect((await visit(slug, "/")).text).toBe("<p>live one</p>");
    expect((await visit(`${slug}---v2`, "/")).text).toBe("<p>staged two</p>");
    const detail = await dropRoute.GET(apiRequest(`/drops/${slug}`, { headers: bearer(owner.apiKey) }), {
      params: Promise.resolve({ slug }),
    });
    expect(await detail.json()).toMatchObject({ live_version: 1, file_count: 1 });
    // an append, staged or not, builds on the live version (1), not on the staged one
    const appended = await appendPOST(
      apiRequest(`/deploy/${slug}?promote=false`, {
        method: "POST",
        body: JSON.stringify({ files: { "more.html": "<p>more</p>" } }),
        headers: { "content-type": "application/json", ...bearer(owner.apiKey) },
      }),
      { params: Promise.resolve({ slug }) },
    );
    expect(await appended.json()).toMatchObject({ version: 3, live_version: 1, promoted: false, total_files: 2 });
    expect((await visit(`${slug}---v3`, "/")).text).toBe("<p>live one</p>");
    expect((await visit(`${slug}---v3`, "/more.html")).text).toBe("<p>more</p>");
    expect((await visit(slug, "/more.html")).status).toBe(404);
    // the webhook events say which versions were staged
    expect(await eventsOf(slug)).toEqual([
      {
        type: "drop.deployed",
        slug,
        version: 1,
        promoted: true,
        version_url: `http://${slug}---v1.${TEST_SERVE_DOMAIN}/`,
      },
      {
        type: "drop.replaced",
        slug,
        version: 2,
        promoted: false,
        version_url: `http://${slug}---v2.${TEST_SERVE_DOMAIN}/`,
      },
      {
        type: "drop.appended",
        slug,
        version: 3,
        promoted: false,
        version_url: `http://${slug}---v3.${TEST_SERVE_DOMAIN}/`,
      },
    ]);
    // the promote is the rollback route
    const promoted = await rollbackRoute.POST(
      apiRequest(`/drops/${slug}/rollback`, {
        method: "POST",
        body: JSON.stringify({ version: 2 }),
        headers: { "content-type": "application/json", ...bearer(owner.apiKey) },
      }),
      { params: Promise.resolve({ slug }) },
    );
    expect(await promoted.json()).toMatchObject({ live_version: 2 });
    expect((await visit(slug, "/")).text).toBe("<p>staged two</p>");
    // a promoted deploy says so
    const live = await deploy(owner.apiKey, { "index.html": "<p>four</p>" }, `?name=${name}&promote=true`);
    expect(live).toMatchObject({ version: 4, live_version: 4, promoted: true });
  });

  it("promote other than true or false answers 400 invalid_request and creates nothing", async () => {
    const owner = await accountWithKey(t.ctx, "pro");
    const name = `sb-${Math.random().toString(36).slice(2, 8)}`;
    const { slug } = await deploy(owner.apiKey, { "index.html": "one" }, `?name=${name}`);
    for (const bad of ["0", "no", "FALSE", "", "1"]) {
      const res = await deployPOST(
        apiRequest(`/deploy?name=${name}&promote=${bad}`, {
          method: "POST",
          body: JSON.stringify({ files: { "index.html": "two" } }),
          headers: { "content-type": "application/json", ...bearer(owner.apiKey) },
        }),
        noParams,
      );
      expect(res.status, bad).toBe(400);
      expect(((await res.json()) as { code: string }).code, bad).toBe("invalid_request");
      const app = await appendPOST(
        apiRequest(`/deploy/${slug}?promote=${bad}`, {
          method: "POST",
          body: JSON.stringify({ files: { "x.html": "x" } }),
          headers: { "content-type": "application/json", ...bearer(owner.apiKey) },
        }),
        { params: Promise.resolve({ slug }) },
      );
      expect(app.status, bad).toBe(400);
    }
    const list = await versionsRoute.GET(apiRequest(`/drops/${slug}/versions`, { headers: bearer(owner.apiKey) }), {
      params: Promise.resolve({ slug }),
    });
    expect(await list.json()).toMatchObject({ total: 1, live_version: 1 });
  });

  it("pruning never removes the live version, even when staged versions are newer", async () => {
    const owner = await accountWithKey(t.ctx, "pro");
    const name = `sp-${Math.random().toString(36).slice(2, 8)}`;
    const { slug } = await deploy(owner.apiKey, { "index.html": "<p>live</p>" }, `?name=${name}`);
    for (let i = 2; i <= 8; i++)
      await deploy(owner.apiKey, { "index.html": `<p>staged ${i}</p>` }, `?name=${name}&promote=false`);
    await setPlan(t.ctx.db, owner.account.id, "free");
    await runCleanup(t.ctx);
    await setPlan(t.ctx.db, owner.account.id, "pro");
    expect((await visit(slug, "/")).text).toBe("<p>live</p>");
    expect((await visit(`${slug}---v1`, "/")).text).toBe("<p>live</p>");
    expect((await visit(`${slug}---v8`, "/")).text).toBe("<p>staged 8</p>");
    expect((await visit(`${slug}---v3`, "/")).status).toBe(404);
    const list = await versionsRoute.GET(apiRequest(`/drops/${slug}/versions`, { headers: bearer(owner.apiKey) }), {
      params: Promise.resolve({ slug }),
    });
    const body = (await list.json()) as { versions: { version: number }[] };
    // the newest five, and the live one beyond them
    expect(body.versions.map((v) => v.version)).toEqual([8, 7, 6, 5, 4, 1]);
  });
});
