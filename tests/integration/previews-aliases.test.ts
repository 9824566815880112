import { describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import { POST as appendPOST } from "@/app/deploy/[slug]/route";
import * as versionsRoute from "@/app/drops/[slug]/versions/route";
import { countDrops, findDropBySlug } from "@/lib/db/queries";
import { limits } from "@/lib/plans";
import * as aliasRoute from "@/app/drops/[slug]/aliases/[name]/route";
import * as aliasesRoute from "@/app/drops/[slug]/aliases/route";
import * as limitsRoute from "@/app/limits/route";
import { disableDrop } from "@/lib/admin/actions";
import { setPlan } from "@/lib/db/accounts";
import { events } from "@/lib/db/schema";
import { runCleanup } from "@/lib/drops/lifecycle";
import { serveRequest } from "@/lib/serve";
import { accountWithKey, bearer } from "../support/accounts";
import { apiRequest, dropRequest, suiteContext, TEST_SERVE_DOMAIN } from "../support/context";

// Aliases (DESIGN round 5, "Previews"): PUT/GET/DELETE /drops/{slug}/aliases[/{name}], the host
// `<slug>---<name>` serving the aliased version, the plan's cap, retention that keeps aliased
// versions, and the alias.updated / alias.deleted events.

const t = suiteContext({}, { freshLimiter: true });
const noParams = { params: Promise.resolve({}) };
let ip = 0;

/** POST /deploy with a FilesBody: the answer's status and body. */
async function post(apiKey: string | null, query: string, files: Record<string, string>) {
  const res = await deployPOST(
    apiRequest(`/deploy${query}`, {
      method: "POST",
      body: JSON.stringify({ files }),
      headers: { "content-type": "application/json", ...(apiKey ? bearer(apiKey) : {}) },
      ip: `198.51.100.${++ip % 250}`,
    }),
    noParams,
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function deploy(apiKey: string | null, files: Record<string, string>, query = "") {
  const { status, body } = await post(apiKey, query, files);
  expect(status, JSON.stringify(body)).toBe(200);
  return body as { slug: string; version: number };
}

async function put(apiKey: string, slug: string, name: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await aliasRoute.PUT(
    apiRequest(`/drops/${slug}/aliases/${name}`, {
      method: "PUT",
      body: typeof body === "string" ? body : JSON.stringify(body),
      headers: { "content-type": "application/json", ...bearer(apiKey), ...headers },
    }),
    { params: Promise.resolve({ slug, name }) },
  );
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

async function del(apiKey: string, slug: string, name: string) {
  const res = await aliasRoute.DELETE(
    apiRequest(`/drops/${slug}/aliases/${name}`, { method: "DELETE", headers: bearer(apiKey) }),
    { params: Promise.resolve({ slug, name }) },
  );
  const text = await res.text();
  return { status: res.status, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

async function list(apiKey: string, slug: string) {
  const res = await aliasesRoute.GET(apiRequest(`/drops/${slug}/aliases`, { headers: bearer(apiKey) }), {
    params: Promise.resolve({ slug }),
  });
  return { status: res.status, body: (await res.json()) as { aliases: Record<string, unknown>[]; code?: string } };
}

async function visit(label: string, path = "/") {
  const res = await serveRequest(t.ctx, dropRequest(label, path));
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A pro account's named drop with versions 1 and 2 (live). */
async function twoVersions() {
  const owner = await accountWithKey(t.ctx, "pro");
  const name = `al-${Math.random().toString(36).slice(2, 8)}`;
  const { slug } = await deploy(owner.apiKey, { "index.html": "<p>one</p>" }, `?name=${name}`);
  await deploy(owner.apiKey, { "index.html": "<p>two</p>" }, `?name=${name}`);
  return { owner, slug, url: (a: string) => `http://${slug}---${a}.${TEST_SERVE_DOMAIN}/` };
}

describe("aliases: create, move, list, delete", () => {
  it("an alias serves its version at <slug>---<name>, moves, is listed and deleted", async () => {
    const { owner, slug, url } = await twoVersions();
    expect(await put(owner.apiKey, slug, "staging", { version: 1 })).toMatchObject({
      status: 200,
      body: { name: "staging", version: 1, url: url("staging") },
    });
    const one = await visit(`${slug}---staging`);
    expect(one).toMatchObject({ status: 200, text: "<p>one</p>" });
    expect(one.headers.get("x-robots-tag")).toBe("noindex");
    expect((await visit(slug)).text).toBe("<p>two</p>");
    // moving it takes effect at once in this process
    expect((await put(owner.apiKey, slug, "staging", { version: 2 })).body).toMatchObject({ version: 2 });
    expect((await visit(`${slug}---staging`)).text).toBe("<p>two</p>");
    await put(owner.apiKey, slug, "pr-42", { version: 1 });
    const listed = await list(owner.apiKey, slug);
    expect(listed.body.aliases).toEqual([
      { name: "pr-42", version: 1, url: url("pr-42"), updated_at: expect.any(String) },
      { name: "staging", version: 2, url: url("staging"), updated_at: expect.any(String) },
    ]);
    expect(await del(owner.apiKey, slug, "staging")).toMatchObject({ status: 204, text: "" });
    const gone = await visit(`${slug}---staging`);
    expect(gone.status).toBe(404);
    expect(gone.text).toContain("No preview named staging");
    expect(gone.text).not.toContain("<p>two</p>");
    expect(await del(owner.apiKey, slug, "staging")).toMatchObject({ status: 404, body: { code: "not_found" } });
    expect((await list(owner.apiKey, slug)).body.aliases.map((a) => a.name)).toEqual(["pr-42"]);
    // the events
    const rows = (await t.ctx.db.select().from(events)).filter((e) => (e.data as { slug?: string }).slug === slug);
    const aliasEvents = rows.filter((e) => e.type.startsWith("alias.")).map((e) => [e.type, e.data]);
    expect(aliasEvents).toEqual(
      expect.arrayContaining([
        ["alias.updated", { slug, name: "staging", version: 1, url: url("staging") }],
        ["alias.updated", { slug, name: "staging", version: 2, url: url("staging") }],
        ["alias.deleted", { slug, name: "staging", version: 2 }],
      ]),
    );
    expect(aliasEvents).toHaveLength(4);
  });

  it("bad names are 400 invalid_name; unknown versions 404; a non-integer version 400; nothing changes", async () => {
    const { owner, slug } = await twoVersions();
    for (const name of ["v1", "v01", "a--b", "-a", "a-", "a".repeat(17), "Staging", "a_b"]) {
      expect(await put(owner.apiKey, slug, encodeURIComponent(name), { version: 1 }), name).toMatchObject({
        status: 400,
        body: { code: "invalid_name" },
      });
    }
    expect(await put(owner.apiKey, slug, "ok", { version: 9 })).toMatchObject({
      status: 404,
      body: { code: "not_found" },
    });
    expect(await put(owner.apiKey, slug, "ok", { version: "1" })).toMatchObject({
      status: 400,
      body: { code: "invalid_request" },
    });
    expect(await put(owner.apiKey, slug, "ok", { version: 1.5 })).toMatchObject({ status: 400 });
    expect((await list(owner.apiKey, slug)).body.aliases).toEqual([]);
  });

  it("another account's drop and an anonymous drop are 404; a disabled drop's aliases cannot be written (403)", async () => {
    const { owner, slug } = await twoVersions();
    const other = await accountWithKey(t.ctx, "pro");
    expect(await put(other.apiKey, slug, "x", { version: 1 })).toMatchObject({ status: 404 });
    expect((await list(other.apiKey, slug)).status).toBe(404);
    const anon = await deploy(null, { "index.html": "anon" });
    expect(await put(owner.apiKey, anon.slug, "x", { version: 1 })).toMatchObject({ status: 404 });
    await put(owner.apiKey, slug, "keep", { version: 1 });
    await disableDrop(t.ctx, { id: "test" }, slug, { reason: "spam" });
    expect(await put(owner.apiKey, slug, "x", { version: 1 })).toMatchObject({
      status: 403,
      body: { code: "forbidden" },
    });
    expect(await del(owner.apiKey, slug, "keep")).toMatchObject({ status: 403, body: { code: "forbidden" } });
    expect((await visit(`${slug}---keep`)).status).toBe(451);
  });

  it("Idempotency-Key replays the first answer and moves nothing", async () => {
    const { owner, slug } = await twoVersions();
    const first = await put(owner.apiKey, slug, "idem", { version: 1 }, { "idempotency-key": "k-1" });
    await put(owner.apiKey, slug, "idem", { version: 2 });
    const again = await put(owner.apiKey, slug, "idem", { version: 1 }, { "idempotency-key": "k-1" });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await visit(`${slug}---idem`)).text).toBe("<p>two</p>");
  });
});

describe("the plan's cap and GET /limits", () => {
  it("free drops have 3 aliases: the 4th is 400 invalid_request with details.limit max_aliases; moving one still works", async () => {
    const owner = await accountWithKey(t.ctx, "free");
    const { slug } = await deploy(owner.apiKey, { "index.html": "<p>free</p>" });
    for (const name of ["a", "b", "c"]) expect((await put(owner.apiKey, slug, name, { version: 1 })).status).toBe(200);
    expect(await put(owner.apiKey, slug, "d", { version: 1 })).toMatchObject({
      status: 400,
      body: { code: "invalid_request", limit: "max_aliases", allowed: 3, plan: "free" },
    });
    expect((await put(owner.apiKey, slug, "a", { version: 1 })).status).toBe(200);
    expect((await list(owner.apiKey, slug)).body.aliases).toHaveLength(3);
    const limits = await limitsRoute.GET(apiRequest("/limits", { headers: bearer(owner.apiKey) }), noParams);
    expect(await limits.json()).toMatchObject({ limits: { aliases_per_drop: 3 } });
    const anon = await limitsRoute.GET(apiRequest("/limits"), noParams);
    expect(await anon.json()).toMatchObject({ limits: { aliases_per_drop: 0 } });
  });
});

describe("retention keeps aliased versions", () => {
  it("an aliased version beyond the newest versionsKept is not pruned; others are", async () => {
    const owner = await accountWithKey(t.ctx, "pro");
    const name = `ar-${Math.random().toString(36).slice(2, 8)}`;
    const { slug } = await deploy(owner.apiKey, { "index.html": "<p>1</p>" }, `?name=${name}`);
    for (let i = 2; i <= 8; i++) await deploy(owner.apiKey, { "index.html": `<p>${i}</p>` }, `?name=${name}`);
    expect((await put(owner.apiKey, slug, "old", { version: 2 })).status).toBe(200);
    await setPlan(t.ctx.db, owner.account.id, "free");
    await runCleanup(t.ctx);
    await setPlan(t.ctx.db, owner.account.id, "pro");
    expect((await visit(`${slug}---old`)).text).toBe("<p>2</p>");
    expect((await visit(`${slug}---v2`)).text).toBe("<p>2</p>");
    expect((await visit(`${slug}---v1`)).status).toBe(404);
    expect((await visit(`${slug}---v3`)).status).toBe(404);
  });
});

describe("?alias= on the deploy routes", () => {
  async function append(apiKey: string, slug: string, query: string, files: Record<string, string>) {
    const res = await appendPOST(
      apiRequest(`/deploy/${slug}${query}`, {
        method: "POST",
        body: JSON.stringify({ files }),
        headers: { "content-type": "application/json", ...bearer(apiKey) },
        ip: `198.51.100.${++ip % 250}`,
      }),
      { params: Promise.resolve({ slug }) },
    );
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  const versionsOf = async (apiKey: string, slug: string) => {
    const res = await versionsRoute.GET(apiRequest(`/drops/${slug}/versions`, { headers: bearer(apiKey) }), {
      params: Promise.resolve({ slug }),
    });
    return ((await res.json()) as { total: number }).total;
  };

  it("points the alias at the new version in the same request: a staged redeploy (pr-42), then an append", async () => {
    const { owner, slug, url } = await twoVersions();
    const drop = await findDropBySlug(t.ctx.db, slug);
    const staged = await post(owner.apiKey, `?name=${drop!.name}&promote=false&alias=pr-42`, {
      "index.html": "<p>pr</p>",
    });
    expect(staged.status, JSON.stringify(staged.body)).toBe(200);
    expect(staged.body).toMatchObject({ version: 3, live_version: 2, promoted: false });
    expect((await visit(`${slug}---pr-42`)).text).toBe("<p>pr</p>");
    expect((await visit(slug)).text).toBe("<p>two</p>");
    expect((await list(owner.apiKey, slug)).body.aliases).toEqual([
      expect.objectContaining({ name: "pr-42", version: 3, url: url("pr-42") }),
    ]);
    const appended = await append(owner.apiKey, slug, "?promote=false&alias=pr-42", { "b.html": "<p>b</p>" });
    expect(appended.status, JSON.stringify(appended.body)).toBe(200);
    expect((await list(owner.apiKey, slug)).body.aliases).toEqual([
      expect.objectContaining({ name: "pr-42", version: 4 }),
    ]);
    expect((await visit(`${slug}---pr-42`, "/b.html")).text).toBe("<p>b</p>");
  });

  it("refuses before writing: an anonymous deploy, a bad name, a deploy past the plan's cap", async () => {
    const before = await countDrops(t.ctx.db);
    const anonymous = await post(null, "?alias=preview", { "index.html": "x" });
    expect(anonymous).toMatchObject({ status: 400, body: { code: "invalid_request" } });
    const { owner, slug } = await twoVersions();
    const badName = await post(owner.apiKey, "?alias=v2", { "index.html": "x" });
    expect(badName).toMatchObject({ status: 400, body: { code: "invalid_name" } });
    // Only twoVersions' drop was made.
    expect(await countDrops(t.ctx.db)).toBe(before + 1);

    // The pro plan's aliases per drop, all taken: one more through ?alias= is refused whole.
    for (let i = 0; i < limits.pro.aliasesPerDrop; i++)
      expect((await put(owner.apiKey, slug, `n${i}`, { version: 1 })).status).toBe(200);
    const versions = await versionsOf(owner.apiKey, slug);
    const past = await append(owner.apiKey, slug, "?alias=one-more", { "c.html": "c" });
    expect(past).toMatchObject({ status: 400, body: { code: "invalid_request", limit: "max_aliases" } });
    expect(await versionsOf(owner.apiKey, slug)).toBe(versions);
    expect((await visit(slug, "/c.html")).status).toBe(404);
    // Moving an alias it already has is no new alias: allowed at the cap.
    expect((await append(owner.apiKey, slug, "?alias=n0", { "d.html": "d" })).status).toBe(200);
    expect((await list(owner.apiKey, slug)).body.aliases).toContainEqual(
      expect.objectContaining({ name: "n0", version: versions + 1 }),
    );
  });
});
