import { describe, expect, it } from "vitest";
import * as deployRoute from "@/app/deploy/route";
import * as appendRoute from "@/app/deploy/[slug]/route";
import * as dropsRoute from "@/app/drops/route";
import * as dropRoute from "@/app/drops/[slug]/route";
import * as keysRoute from "@/app/keys/route";
import * as keyRoute from "@/app/keys/[id]/route";
import * as limitsRoute from "@/app/limits/route";
import * as claimRoute from "@/app/claim/route";
import * as cronRoute from "@/app/cron/cleanup/route";
import { serveGET } from "../support/serve";
import { findDropBySlug } from "@/lib/db/queries";
import { files as fileRows, type DropRow } from "@/lib/db/schema";
import { accountScope, anonymousDropScope, contentKey } from "@/lib/deploy/contents";
import { eq } from "drizzle-orm";
import { runCleanup } from "@/lib/drops/lifecycle";
import { appendResponseSchema, deployResponseSchema, listDropsResponseSchema } from "@/lib/schemas";
import { suiteContext, clearOfMinuteEdge, apiRequest, dropRequest } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { manyFiles } from "../support/zips";

const p = <P>(params: P) => ({ params: Promise.resolve(params) });
let ip = 0;

const t = suiteContext({ CRON_SECRET: "cron-secret-value" }, { freshLimiter: true });

type Files = Record<string, string>;
function deployJson(files: Files, query = "", headers: Record<string, string> = {}) {
  ip++;
  return deployRoute.POST(
    apiRequest(`/deploy${query}`, {
      method: "POST",
      body: JSON.stringify({ files }),
      headers: { "content-type": "application/json", ...headers },
      ip: `198.18.${ip >> 8}.${ip & 255}`,
    }),
    p({}),
  );
}
function append(slug: string, files: Files, headers: Record<string, string>) {
  return appendRoute.POST(
    apiRequest(`/deploy/${slug}`, {
      method: "POST",
      body: JSON.stringify({ files }),
      headers: { "content-type": "application/json", ...headers },
    }),
    p({ slug }),
  );
}
const visit = (slug: string, path = "/") => serveGET(dropRequest(slug, `/api/serve-drop${path}`));
async function err(res: Response, status: number, code: string) {
  const body = await res.json();
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  return body;
}
const keysUnder = (prefix: string) => t.ctx.storage.list(prefix);
/** The stored bytes a drop's files can use: its contents scope (the account's, or its own when anonymous). */
const bytesOf = async (row: DropRow) => [
  ...(await keysUnder(`${row.id}/`)),
  ...(await keysUnder(`c/${row.ownerId ? accountScope(row.ownerId) : anonymousDropScope(row.id)}/`)),
];

describe("GET /drops and DELETE /drops/{slug}", () => {
  it("lists the account's drops newest first with the contract's fields, paged", async () => {
    const { apiKey } = await accountWithKey(t.ctx);
    const slugs: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1);
      slugs.push((await (await deployJson({ "index.html": `${i}` }, "", bearer(apiKey))).json()).slug);
    }
    const res = await dropsRoute.GET(apiRequest("/drops", { headers: bearer(apiKey) }), p({}));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.total).toBe(3);
    expect(body.drops.map((d: { slug: string }) => d.slug)).toEqual([...slugs].reverse());
    for (const d of body.drops) listDropsResponseSchema.shape.drops.element.strict().parse(d);
    expect(body.drops[0].file_count).toBe(1);
    expect(body.drops[0].name).toBeNull();
    const page = await (
      await dropsRoute.GET(apiRequest("/drops?limit=1&offset=1", { headers: bearer(apiKey) }), p({}))
    ).json();
    expect(page.total).toBe(3);
    expect(page.drops.map((d: { slug: string }) => d.slug)).toEqual([slugs[1]]);
  });

  // Query integers are decimal digits only: Number() would read the found spellings as 100, 16, 1 and 0.
  it.each([
    "limit=0",
    "limit=501",
    "limit=abc",
    "offset=-1",
    "offset=1.5",
    "limit=1e2",
    "limit=0x10",
    "limit=0b1",
    "limit=",
    "offset=",
    "limit=+5",
    "limit=%2010",
    "offset=1e1",
  ])("GET /drops?%s answers 400", async (q) => {
    const { apiKey } = await accountWithKey(t.ctx);
    await err(
      await dropsRoute.GET(apiRequest(`/drops?${q}`, { headers: bearer(apiKey) }), p({})),
      400,
      "invalid_request",
    );
  });

  it("deleting purges rows and bytes; the URL stops serving; another account gets 404", async () => {
    const owner = await accountWithKey(t.ctx);
    const other = await accountWithKey(t.ctx);
    const body = await (await deployJson({ "index.html": "bye", "a/b.txt": "x" }, "", bearer(owner.apiKey))).json();
    const row = await findDropBySlug(t.ctx.db, body.slug);
    expect(await bytesOf(row!)).toHaveLength(2);
    await err(
      await dropRoute.DELETE(
        apiRequest(`/drops/${body.slug}`, { method: "DELETE", headers: bearer(other.apiKey) }),
        p({ slug: body.slug }),
      ),
      404,
      "not_found",
    );
    expect((await visit(body.slug)).status).toBe(200);
    const res = await dropRoute.DELETE(
      apiRequest(`/drops/${body.slug}`, { method: "DELETE", headers: bearer(owner.apiKey) }),
      p({ slug: body.slug }),
    );
    expect(await res.json()).toEqual({ deleted: body.slug });
    expect(await bytesOf(row!)).toEqual([]);
    expect(await findDropBySlug(t.ctx.db, body.slug)).toBeUndefined();
    expect((await visit(body.slug)).status).toBe(404);
    await err(
      await dropRoute.DELETE(
        apiRequest(`/drops/${body.slug}`, { method: "DELETE", headers: bearer(owner.apiKey) }),
        p({ slug: body.slug }),
      ),
      404,
      "not_found",
    );
  });
});

describe("plans on POST /deploy", () => {
  it("a free account gets 402 with upgrade_url for name, and 7-day default lifetime", async () => {
    const { apiKey } = await accountWithKey(t.ctx);
    const body = await err(
      await deployJson({ "index.html": "x" }, "?name=blog", bearer(apiKey)),
      402,
      "subscription_required",
    );
    expect(body.hint).toBeTruthy();
    expect(body.upgrade_url).toMatch(/^http/);
    const ok = await (await deployJson({ "index.html": "x" }, "", bearer(apiKey))).json();
    expect(ok.plan).toBe("free");
    expect(ok).not.toHaveProperty("claim_token");
    expect(Date.parse(ok.expires_at) - t.clock.now).toBe(7 * 86400 * 1000);
    await err(await deployJson({ "index.html": "x" }, "?ttl=604801", bearer(apiKey)), 400, "invalid_ttl");
  });

  it("subscribers' drops never expire by default and may set any ttl", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const res = await (await deployJson({ "index.html": "x" }, "", bearer(apiKey))).json();
    expect(res.plan).toBe("pro");
    expect(res.expires_at).toBeNull();
    const long = await (await deployJson({ "index.html": "x" }, "?ttl=31536000", bearer(apiKey))).json();
    expect(Date.parse(long.expires_at) - t.clock.now).toBe(31536000 * 1000);
  });

  it("paid plans raise the per-request file cap to 900", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    expect((await deployJson(manyFiles(900), "", bearer(apiKey))).status).toBe(200);
    await err(await deployJson(manyFiles(901), "", bearer(apiKey)), 400, "file_cap_exceeded");
  });

  it("an invalid name answers 400 invalid_name", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    for (const name of ["Blog", "-blog", "a".repeat(42), "bl_og"]) {
      await err(
        await deployJson({ "index.html": "x" }, `?name=${encodeURIComponent(name)}`, bearer(apiKey)),
        400,
        "invalid_name",
      );
    }
  });

  it("a named redeploy replaces content atomically, keeps slug and URL, counts redeploys, keeps the old version's bytes", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const first = await (
      await deployJson({ "index.html": "v1", "old.txt": "old" }, "?name=site", bearer(apiKey))
    ).json();
    deployResponseSchema.parse(first);
    expect(first).toMatchObject({ name: "site", replaced: false });
    const row = await findDropBySlug(t.ctx.db, first.slug);
    const second = await (await deployJson({ "index.html": "v2" }, "?name=site", bearer(apiKey))).json();
    expect(second).toMatchObject({
      slug: first.slug,
      url: first.url,
      name: "site",
      replaced: true,
      files: ["index.html"],
    });
    expect(await (await visit(first.slug)).text()).toBe("v2");
    expect((await visit(first.slug, "/old.txt")).status).toBe(404);
    // The replaced version is retained for a rollback (docs/contract.md, versions): its bytes stay.
    expect(await bytesOf(row!)).toHaveLength(3);
    const list = await (await dropsRoute.GET(apiRequest("/drops", { headers: bearer(apiKey) }), p({}))).json();
    expect(list.drops.find((d: { slug: string }) => d.slug === first.slug)).toMatchObject({
      name: "site",
      redeploy_count: 1,
      file_count: 1,
    });
  });

  it("two parallel deploys of one new name leave one drop", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "team");
    const results = await Promise.all(
      [0, 1, 2].map((i) => deployJson({ "index.html": `p${i}` }, "?name=race", bearer(apiKey)).then((r) => r.json())),
    );
    const slugs = new Set(results.map((r) => r.slug));
    expect(slugs.size).toBe(1);
    const list = await (await dropsRoute.GET(apiRequest("/drops", { headers: bearer(apiKey) }), p({}))).json();
    expect(list.total).toBe(1);
    expect(results.filter((r) => r.replaced === false)).toHaveLength(1);
  });
});

describe("POST /deploy/{slug} (append)", () => {
  it("adds files, answers the AppendResponse with this request's files and the total", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const d = await (await deployJson({ "index.html": "x" }, "", bearer(apiKey))).json();
    const res = await append(d.slug, { "more/a.txt": "a", "more/b.txt": "b" }, bearer(apiKey));
    expect(res.status).toBe(200);
    const body = appendResponseSchema.strict().parse(await res.json());
    expect(body.files.sort()).toEqual(["more/a.txt", "more/b.txt"]);
    expect(body.total_files).toBe(3);
    expect(await (await visit(d.slug, "/more/b.txt")).text()).toBe("b");
  });

  it("free accounts get 402, strangers 404, no credential 401, existing paths 400", async () => {
    const free = await accountWithKey(t.ctx);
    const pro = await accountWithKey(t.ctx, "pro");
    const stranger = await accountWithKey(t.ctx, "pro");
    const fd = await (await deployJson({ "index.html": "x" }, "", bearer(free.apiKey))).json();
    await err(await append(fd.slug, { "a.txt": "a" }, bearer(free.apiKey)), 402, "subscription_required");
    const pd = await (await deployJson({ "index.html": "x" }, "", bearer(pro.apiKey))).json();
    await err(await append(pd.slug, { "a.txt": "a" }, bearer(stranger.apiKey)), 404, "not_found");
    await err(await append(pd.slug, { "a.txt": "a" }, {}), 401, "auth_required");
    await err(await append("nosuchslug", { "a.txt": "a" }, bearer(pro.apiKey)), 404, "not_found");
    await err(await append(pd.slug, { "index.html": "again" }, bearer(pro.apiKey)), 400, "invalid_request");
    expect(await (await visit(pd.slug)).text()).toBe("x");
  });

  it("20 parallel appends near the 10,000 total never pass it", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "team");
    const d = await (await deployJson(manyFiles(900), "", bearer(apiKey))).json();
    for (let i = 0; i < 10; i++) {
      const batch: Files = {};
      for (let j = 0; j < 900; j++) batch[`b${i}/f${j}.txt`] = "x";
      expect((await append(d.slug, batch, bearer(apiKey))).status).toBe(200);
    }
    // 9,900 files now; 20 appends of 10 would make 10,100.
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const batch: Files = {};
        for (let j = 0; j < 10; j++) batch[`race${i}/f${j}.txt`] = "y";
        return append(d.slug, batch, bearer(apiKey));
      }),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 413)).toHaveLength(10);
    for (const r of results.filter((r) => r.status === 413)) expect((await r.json()).code).toBe("payload_too_large");
    const row = await findDropBySlug(t.ctx.db, d.slug);
    expect(row!.fileCount).toBe(10_000);
    // What is stored is exactly the contents the drop's files use: the refused appends left none.
    const used = await t.ctx.db
      .selectDistinct({ sha256: fileRows.sha256 })
      .from(fileRows)
      .where(eq(fileRows.dropId, row!.id));
    expect(await bytesOf(row!)).toEqual(used.map((u) => contentKey(accountScope(row!.ownerId!), u.sha256)).sort());
    await err(await append(d.slug, { "one-more.txt": "z" }, bearer(apiKey)), 413, "payload_too_large");
  }, 240_000);
});

describe("claiming and the drop lifecycle", () => {
  async function anonymousDrop(query = "") {
    return (await deployJson({ "index.html": "anon" }, query)).json() as Promise<{
      slug: string;
      claim_token: string;
      expires_at: string;
    }>;
  }
  const claim = (slug: string, token: string, apiKey: string) =>
    claimRoute.POST(
      apiRequest("/claim", {
        method: "POST",
        body: JSON.stringify({ slug, claim_token: token }),
        headers: { ...bearer(apiKey), "content-type": "application/json" },
      }),
      p({}),
    );

  it("a claim gives the drop to the account once, with the claimer's lifetime", async () => {
    const { apiKey } = await accountWithKey(t.ctx);
    const d = await anonymousDrop();
    await err(await claim(d.slug, "ct_wrong", apiKey), 404, "not_found");
    const res = await claim(d.slug, d.claim_token, apiKey);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ slug: d.slug, plan: "free" });
    expect(Date.parse(body.expires_at) - t.clock.now).toBe(7 * 86400 * 1000);
    await err(await claim(d.slug, d.claim_token, apiKey), 404, "not_found");
    const list = await (await dropsRoute.GET(apiRequest("/drops", { headers: bearer(apiKey) }), p({}))).json();
    expect(list.drops.map((x: { slug: string }) => x.slug)).toContain(d.slug);
    // Claimed drops are indexed normally.
    expect((await visit(d.slug)).headers.get("x-robots-tag")).toBeNull();
  });

  it("free accounts keep at most 100 drops: the 101st deploy or claim answers 402 with upgrade_url", async () => {
    const { apiKey } = await accountWithKey(t.ctx);
    for (let i = 0; i < 100; i++)
      expect((await deployJson({ "index.html": `${i}` }, "", bearer(apiKey))).status).toBe(200);
    const over = await err(await deployJson({ "index.html": "x" }, "", bearer(apiKey)), 402, "subscription_required");
    expect(over.upgrade_url).toBeTruthy();
    const d = await anonymousDrop();
    await err(await claim(d.slug, d.claim_token, apiKey), 402, "subscription_required");
    // The refused claim left the token usable.
    const other = await accountWithKey(t.ctx);
    expect((await claim(d.slug, d.claim_token, other.apiKey)).status).toBe(200);
  }, 120_000);

  it("two parallel claims with one token: exactly one wins", async () => {
    const a = await accountWithKey(t.ctx);
    const b = await accountWithKey(t.ctx);
    const d = await anonymousDrop();
    const [ra, rb] = await Promise.all([
      claim(d.slug, d.claim_token, a.apiKey),
      claim(d.slug, d.claim_token, b.apiKey),
    ]);
    expect([ra.status, rb.status].sort()).toEqual([200, 404]);
  });

  it("claims need a credential and a body", async () => {
    const d = await anonymousDrop();
    await err(
      await claimRoute.POST(
        apiRequest("/claim", { method: "POST", body: JSON.stringify({ slug: d.slug, claim_token: d.claim_token }) }),
        p({}),
      ),
      401,
      "auth_required",
    );
    const { apiKey } = await accountWithKey(t.ctx);
    await err(
      await claimRoute.POST(apiRequest("/claim", { method: "POST", body: "{", headers: bearer(apiKey) }), p({})),
      400,
      "invalid_request",
    );
  });

  it("anonymous: offline (410) after 30 days, still claimable, back online when claimed, purged after 60", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const kept = await anonymousDrop();
    const lost = await anonymousDrop();
    const lostRow = await findDropBySlug(t.ctx.db, lost.slug);
    t.clock.advance(30 * 86400 + 1);
    expect((await visit(kept.slug)).status).toBe(410);
    expect((await visit(lost.slug)).status).toBe(410);
    await runCleanup(t.ctx);
    expect(await findDropBySlug(t.ctx.db, lost.slug)).toBeDefined();
    const res = await claim(kept.slug, kept.claim_token, pro.apiKey);
    expect(res.status).toBe(200);
    expect((await res.json()).expires_at).toBeNull();
    expect((await visit(kept.slug)).status).toBe(200);
    t.clock.advance(30 * 86400);
    const result = await runCleanup(t.ctx);
    expect(result.slugs).toContain(lost.slug);
    expect(result.slugs).not.toContain(kept.slug);
    expect(await findDropBySlug(t.ctx.db, lost.slug)).toBeUndefined();
    expect(await bytesOf(lostRow!)).toEqual([]);
    expect((await visit(lost.slug)).status).toBe(404);
    expect((await visit(kept.slug)).status).toBe(200);
  });

  it("past the claim window a claim answers 410 gone", async () => {
    const { apiKey } = await accountWithKey(t.ctx);
    const d = await anonymousDrop("?ttl=60");
    t.clock.advance(60 + 30 * 86400 + 1);
    await err(await claim(d.slug, d.claim_token, apiKey), 410, "gone");
  });

  it("account drops stop serving at expires_at and are purged; cleanup twice at once is safe", async () => {
    const { apiKey } = await accountWithKey(t.ctx);
    const d = await (await deployJson({ "index.html": "short" }, "?ttl=120", bearer(apiKey))).json();
    const row = await findDropBySlug(t.ctx.db, d.slug);
    t.clock.advance(121);
    expect((await visit(d.slug)).status).toBe(410);
    const [r1, r2] = await Promise.all([runCleanup(t.ctx), runCleanup(t.ctx)]);
    expect([...r1.slugs, ...r2.slugs].filter((s) => s === d.slug)).toHaveLength(1);
    expect(await findDropBySlug(t.ctx.db, d.slug)).toBeUndefined();
    expect(await bytesOf(row!)).toEqual([]);
    expect((await runCleanup(t.ctx)).purged).toBe(0);
  });

  it("GET /cron/cleanup needs the CRON_SECRET", async () => {
    await err(await cronRoute.GET(apiRequest("/cron/cleanup"), p({})), 401, "auth_required");
    await err(
      await cronRoute.GET(apiRequest("/cron/cleanup", { headers: bearer("wrong") }), p({})),
      401,
      "auth_required",
    );
    const ok = await cronRoute.GET(apiRequest("/cron/cleanup", { headers: bearer("cron-secret-value") }), p({}));
    expect(ok.status).toBe(200);
    expect(typeof (await ok.json()).purged).toBe("number");
  });
});

describe("keys with an API key credential", () => {
  it("lists keys (without secrets), cannot mint, revokes instantly", async () => {
    const { apiKey, keyId, account } = await accountWithKey(t.ctx);
    const list = await (await keysRoute.GET(apiRequest("/keys", { headers: bearer(apiKey) }), p({}))).json();
    expect(list.keys).toEqual([
      {
        keyId,
        kind: "api_key",
        prefix: apiKey.slice(0, 10),
        note: "test",
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
      },
    ]);
    expect(JSON.stringify(list)).not.toContain(apiKey);
    await err(
      await keysRoute.POST(apiRequest("/keys", { method: "POST", headers: bearer(apiKey) }), p({})),
      401,
      "auth_required",
    );
    const other = await accountWithKey(t.ctx);
    await err(
      await keyRoute.DELETE(
        apiRequest(`/keys/${keyId}`, { method: "DELETE", headers: bearer(other.apiKey) }),
        p({ id: keyId }),
      ),
      404,
      "not_found",
    );
    const res = await keyRoute.DELETE(
      apiRequest(`/keys/${keyId}`, { method: "DELETE", headers: bearer(apiKey) }),
      p({ id: keyId }),
    );
    expect(await res.json()).toEqual({ revoked: keyId });
    await err(await dropsRoute.GET(apiRequest("/drops", { headers: bearer(apiKey) }), p({})), 401, "auth_required");
    expect(account.id).toMatch(/^acc_/);
  });
});

describe("GET /limits and rate limits", () => {
  it("reports the caller's plan limits", async () => {
    const anon = await (await limitsRoute.GET(apiRequest("/limits"), p({}))).json();
    expect(anon.plan).toBe("anonymous");
    expect(anon.limits).toMatchObject({
      files_per_request: 100,
      zip_bytes: 25 * 1024 * 1024,
      ttl_max_seconds: 2592000,
    });
    const { apiKey } = await accountWithKey(t.ctx, "team");
    const team = await (await limitsRoute.GET(apiRequest("/limits", { headers: bearer(apiKey) }), p({}))).json();
    expect(team).toMatchObject({ plan: "team", paid: true });
    expect(team.limits).toMatchObject({
      files_per_request: 900,
      zip_bytes: 100 * 1024 * 1024,
      ttl_max_seconds: null,
      vanity: true,
      max_drops: 20000,
    });
  });

  it("account routes allow 120 requests a minute per credential, then 429 with Retry-After", async () => {
    await clearOfMinuteEdge(t, 40); // 121 requests take a while on a busy machine
    const { apiKey } = await accountWithKey(t.ctx);
    for (let i = 0; i < 120; i++)
      expect((await dropsRoute.GET(apiRequest("/drops", { headers: bearer(apiKey) }), p({}))).status).toBe(200);
    const res = await dropsRoute.GET(apiRequest("/drops", { headers: bearer(apiKey) }), p({}));
    await err(res, 429, "rate_limited");
    // The limiter's real wait: the whole minute on the in-process limiter's frozen test clock,
    // what is left of it on the Upstash limiter (hosted stack).
    const wait = Number(res.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    if (!t.hosted) expect(wait).toBe(60);
  });

  it("POST /claim allows 10 a minute per address", async () => {
    await clearOfMinuteEdge(t);
    const { apiKey } = await accountWithKey(t.ctx);
    const req = () =>
      claimRoute.POST(
        apiRequest("/claim", {
          method: "POST",
          body: JSON.stringify({ slug: "x", claim_token: "y" }),
          headers: bearer(apiKey),
          ip: "192.0.2.200",
        }),
        p({}),
      );
    for (let i = 0; i < 10; i++) expect((await req()).status).toBe(404);
    await err(await req(), 429, "rate_limited");
  });
});
