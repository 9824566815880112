import { afterEach, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import * as queueRoute from "@/app/admin/queue/route";
import * as adminReportRoute from "@/app/admin/reports/[id]/route";
import * as resolveRoute from "@/app/admin/reports/[id]/resolve/route";
import * as disableRoute from "@/app/admin/drops/[slug]/disable/route";
import * as enableRoute from "@/app/admin/drops/[slug]/enable/route";
import * as adminDropRoute from "@/app/admin/drops/[slug]/route";
import * as suspendRoute from "@/app/admin/accounts/[id]/suspend/route";
import * as unsuspendRoute from "@/app/admin/accounts/[id]/unsuspend/route";
import * as blocksRoute from "@/app/admin/blocks/route";
import * as blockRoute from "@/app/admin/blocks/[id]/route";
import * as auditRoute from "@/app/admin/audit/route";
import * as reportsRoute from "@/app/reports/route";
import * as dropsRoute from "@/app/drops/route";
import * as dropRoute from "@/app/drops/[slug]/route";
import * as accessRoute from "@/app/drops/[slug]/access/route";
import * as renderRoute from "@/app/drops/[slug]/render/route";
import * as deployRoute from "@/app/deploy/route";
import * as preflightRoute from "@/app/deploy/preflight/route";
import { anonymousCaller } from "@/lib/auth/caller";
import { createDrop } from "@/lib/deploy/store";
import { setAccess } from "@/lib/drops/access";
import { accounts, auditLog, domains, events, reports, webhooks } from "@/lib/db/schema";
import { recordEvent } from "@/lib/db/events";
import { claimDueDeliveries } from "@/lib/db/webhooks";
import { resolveHost } from "@/lib/serve/host";
import { serveDrop } from "@/lib/serve/serve";
import { reportLimits } from "@/lib/plans";
import { accountWithKey, bearer } from "../support/accounts";
import { connectInProcess, resultText, type CallResult } from "../support/mcp";
import { apiRequest, suiteContext, TEST_BASE_URL, TEST_SERVE_DOMAIN } from "../support/context";

// Trust and safety, operators' side (DESIGN "Trust and safety"): reports, the /admin/* routes
// (404 to everyone but an operator), disabling drops (451 everywhere without reading storage),
// suspending accounts, address blocks, and one audit entry per action.

const OPERATOR_EMAIL = "ops@example.test";
const t = suiteContext({ ADMIN_EMAILS: `Someone@else.test, ${OPERATOR_EMAIL.toUpperCase()}` }, { freshLimiter: true });

const p = <P>(params: P) => ({ params: Promise.resolve(params) });
const enc = (s: string) => new TextEncoder().encode(s);
const post = (credential: string | null, body?: unknown, ip?: string) => ({
  method: "POST",
  headers: { ...(credential ? bearer(credential) : {}), "content-type": "application/json" },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  ...(ip ? { ip } : {}),
});
const get = (credential: string | null) => ({ headers: credential ? bearer(credential) : {} });
const del = (credential: string | null) => ({ method: "DELETE", headers: credential ? bearer(credential) : {} });

/** An account with a key that ADMIN_EMAILS names with a verified email. */
async function operator(): Promise<{ id: string; apiKey: string }> {
  const a = await accountWithKey(t.ctx, "free");
  await t.ctx.db
    .update(accounts)
    .set({ email: OPERATOR_EMAIL, emailVerified: true })
    .where(eq(accounts.id, a.account.id));
  return { id: a.account.id, apiKey: a.apiKey };
}

async function anonDrop(files: Record<string, string> = { "index.html": "<h1>hi</h1>" }): Promise<string> {
  const d = await createDrop(t.ctx, anonymousCaller, {
    files: Object.entries(files).map(([path, text]) => ({ path, bytes: enc(text) })),
    ttl: 86_400,
  });
  return d.slug;
}

async function visitHost(host: string, path: string, method = "GET") {
  const action = resolveHost(host, { serveDomain: TEST_SERVE_DOMAIN, appHost: new URL(TEST_BASE_URL).host });
  const res = await serveDrop(t.ctx, action, { method, pathname: path, headers: new Headers({ host }) });
  return { status: res.status, text: await res.text(), headers: res.headers };
}
const visit = (slug: string, path = "/") => visitHost(`${slug}.${TEST_SERVE_DOMAIN}`, path);

/** Storage that fails the test when read, for the span of a check. */
let restoreStorage: (() => void) | undefined;
function storageMustNotBeRead(): void {
  const original = t.ctx.storage.get.bind(t.ctx.storage);
  t.ctx.storage.get = (ref) => {
    throw new Error(`storage was read (${ref}) while the drop is disabled`);
  };
  restoreStorage = () => {
    t.ctx.storage.get = original;
  };
}
afterEach(() => {
  restoreStorage?.();
  restoreStorage = undefined;
});

async function auditActions(target: string): Promise<string[]> {
  const rows = await t.ctx.db.select().from(auditLog).where(eq(auditLog.target, target));
  return rows.map((r) => r.action).sort();
}

describe("every /admin route answers 404 to anyone but an operator", () => {
  const calls: [string, (credential: string | null) => Promise<Response>][] = [
    ["GET /admin/queue", (c) => queueRoute.GET(apiRequest("/admin/queue", get(c)), p({}))],
    ["GET /admin/reports/{id}", (c) => adminReportRoute.GET(apiRequest("/admin/reports/x", get(c)), p({ id: "x" }))],
    [
      "POST /admin/reports/{id}/resolve",
      (c) =>
        resolveRoute.POST(apiRequest("/admin/reports/x/resolve", post(c, { action: "dismissed" })), p({ id: "x" })),
    ],
    [
      "POST /admin/drops/{slug}/disable",
      (c) =>
        disableRoute.POST(
          apiRequest("/admin/drops/a/disable", post(c, { reason: "spam" })),
          p({ slug: "aaaaaaaaaaaaaaaaaaaa" }),
        ),
    ],
    [
      "POST /admin/drops/{slug}/enable",
      (c) => enableRoute.POST(apiRequest("/admin/drops/a/enable", post(c)), p({ slug: "aaaaaaaaaaaaaaaaaaaa" })),
    ],
    [
      "DELETE /admin/drops/{slug}",
      (c) => adminDropRoute.DELETE(apiRequest("/admin/drops/a", del(c)), p({ slug: "aaaaaaaaaaaaaaaaaaaa" })),
    ],
    [
      "POST /admin/accounts/{id}/suspend",
      (c) => suspendRoute.POST(apiRequest("/admin/accounts/x/suspend", post(c, { reason: "spam" })), p({ id: "x" })),
    ],
    [
      "POST /admin/accounts/{id}/unsuspend",
      (c) => unsuspendRoute.POST(apiRequest("/admin/accounts/x/unsuspend", post(c)), p({ id: "x" })),
    ],
    [
      "POST /admin/blocks",
      (c) => blocksRoute.POST(apiRequest("/admin/blocks", post(c, { cidr: "10.0.0.0/8", reason: "x" })), p({})),
    ],
    ["GET /admin/blocks", (c) => blocksRoute.GET(apiRequest("/admin/blocks", get(c)), p({}))],
    ["DELETE /admin/blocks/{id}", (c) => blockRoute.DELETE(apiRequest("/admin/blocks/x", del(c)), p({ id: "x" }))],
    ["GET /admin/audit", (c) => auditRoute.GET(apiRequest("/admin/audit", get(c)), p({}))],
  ];

  it.each(calls)("%s", async (_name, call) => {
    const plain = await accountWithKey(t.ctx, "team");
    // An email in ADMIN_EMAILS that the provider did not vouch for makes no operator.
    const unverified = await accountWithKey(t.ctx, "free");
    await t.ctx.db.update(accounts).set({ email: OPERATOR_EMAIL }).where(eq(accounts.id, unverified.account.id));
    for (const credential of [null, plain.apiKey, unverified.apiKey, "sp_not_a_real_key"]) {
      const res = await call(credential);
      expect(res.status, String(credential)).toBe(404);
      expect((await res.json()).code).toBe("not_found");
    }
    const before = await t.ctx.db.select().from(auditLog);
    expect(before.filter((e) => e.actor === plain.account.id || e.actor === unverified.account.id)).toEqual([]);
    // The operator reaches the route (an answer other than the route-level 404 of a stranger, or a 404 about the thing).
    const ops = await operator();
    const res = await call(ops.apiKey);
    const body = await res.json();
    if (res.status === 404) expect(body.error).toMatch(/No such/);
    else expect(res.status).toBeLessThan(300);
  });
});

describe("reports", () => {
  it("POST /reports takes a drop URL on any host and path, keeps the address only as a keyed hash", async () => {
    const slug = await anonDrop();
    const res = await reportsRoute.POST(
      apiRequest(
        "/reports",
        post(
          null,
          {
            url: `http://${slug}.${TEST_SERVE_DOMAIN}/login.html?x=1`,
            reason: "phishing",
            details: "a fake bank",
            contact: "me@example.org",
          },
          "198.51.100.23",
        ),
      ),
      p({}),
    );
    expect(res.status).toBe(202);
    const body = await res.json();
    expect(body).toEqual({ id: expect.stringMatching(/^rep_/), status: "received" });
    const [row] = await t.ctx.db.select().from(reports).where(eq(reports.id, body.id));
    expect(row).toMatchObject({
      slug,
      reason: "phishing",
      details: "a fake bank",
      contact: "me@example.org",
      status: "open",
    });
    expect(row!.reporterHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain("198.51.100.23");
    expect(await auditActions(`drop:${slug}`)).toEqual(["report.received"]);
  });

  it("a report's URL is stored without userinfo", async () => {
    const slug = await anonDrop();
    const sent: [string, string][] = [
      [`http://evil@${slug}.${TEST_SERVE_DOMAIN}/`, `http://${slug}.${TEST_SERVE_DOMAIN}/`],
      [`http://user:secret@${slug}.${TEST_SERVE_DOMAIN}/login?x=1`, `http://${slug}.${TEST_SERVE_DOMAIN}/login?x=1`],
    ];
    for (const [url, stored] of sent) {
      const res = await reportsRoute.POST(
        apiRequest("/reports", post(null, { url, reason: "phishing" }, "198.51.100.24")),
        p({}),
      );
      expect(res.status).toBe(202);
      const [row] = await t.ctx.db
        .select()
        .from(reports)
        .where(eq(reports.id, ((await res.json()) as { id: string }).id));
      expect(row!.url).toBe(stored);
    }
  });

  it("another site's URL, the app host and a malformed body are 400; a missing drop 404; nothing is stored", async () => {
    const before = (await t.ctx.db.select().from(reports)).length;
    for (const body of [
      { url: "https://example.com/", reason: "phishing" },
      { url: `${TEST_BASE_URL}/docs`, reason: "phishing" },
      { url: "not a url", reason: "spam" },
      { url: `http://aaaaaaaaaaaaaaaaaaaa.${TEST_SERVE_DOMAIN}/`, reason: "lies" },
      {
        url: `http://aaaaaaaaaaaaaaaaaaaa.${TEST_SERVE_DOMAIN}/`,
        reason: "spam",
        details: "x".repeat(reportLimits.detailsChars + 1),
      },
      { url: `http://aaaaaaaaaaaaaaaaaaaa.${TEST_SERVE_DOMAIN}/`, reason: "spam", contact: "not-an-email" },
    ]) {
      const res = await reportsRoute.POST(apiRequest("/reports", post(null, body, "198.51.100.40")), p({}));
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect((await res.json()).code).toBe("invalid_request");
    }
    const missing = await reportsRoute.POST(
      apiRequest(
        "/reports",
        post(null, { url: `http://aaaaaaaaaaaaaaaaaaaa.${TEST_SERVE_DOMAIN}/`, reason: "spam" }, "198.51.100.41"),
      ),
      p({}),
    );
    expect(missing.status).toBe(404);
    expect((await t.ctx.db.select().from(reports)).length).toBe(before);
  });

  it(`one address may send ${reportLimits.perAddressPerHour} an hour; then 429`, async () => {
    const slug = await anonDrop();
    const send = (ip: string) =>
      reportsRoute.POST(
        apiRequest("/reports", post(null, { url: `http://${slug}.${TEST_SERVE_DOMAIN}/`, reason: "spam" }, ip)),
        p({}),
      );
    for (let i = 0; i < reportLimits.perAddressPerHour; i++) expect((await send("198.51.100.77")).status).toBe(202);
    const over = await send("198.51.100.77");
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await send("198.51.100.78")).status).toBe(202);
    t.clock.advance(3601);
    expect((await send("198.51.100.77")).status).toBe(202);
  });

  it("the hourly cap counts one address however it is written, and an IPv6 /64 as one reporter", async () => {
    const slug = await anonDrop();
    const send = (ip: string) =>
      reportsRoute.POST(
        apiRequest("/reports", post(null, { url: `http://${slug}.${TEST_SERVE_DOMAIN}/`, reason: "spam" }, ip)),
        p({}),
      );
    const half = Math.ceil(reportLimits.perAddressPerHour / 2);
    for (let i = 0; i < half; i++) expect((await send("198.51.100.90")).status).toBe(202);
    for (let i = half; i < reportLimits.perAddressPerHour; i++)
      expect((await send("::ffff:198.51.100.90")).status).toBe(202);
    expect((await send("198.51.100.90")).status).toBe(429);
    for (let i = 0; i < reportLimits.perAddressPerHour; i++)
      expect((await send(`2001:db8:77:1::${(i + 1).toString(16)}`)).status).toBe(202);
    expect((await send("2001:DB8:77:1:0:0:0:ffff")).status).toBe(429);
    // Counted once in the queue: all those reports came from two reporters.
    const reporters = await t.ctx.db.select().from(reports).where(eq(reports.slug, slug));
    expect(new Set(reporters.map((r) => r.reporterHash)).size).toBe(2);
  });
});

describe("MCP report_abuse", () => {
  it("files a report without a credential; a URL not ours is an error result and stores nothing", async () => {
    const slug = await anonDrop();
    const client = await connectInProcess("modern", { ip: "198.51.100.90" });
    try {
      const ok = (await client.callTool({
        name: "report_abuse",
        arguments: { url: `http://${slug}.${TEST_SERVE_DOMAIN}/`, reason: "malware", details: "drive-by download" },
      })) as CallResult;
      expect(ok.isError).toBeFalsy();
      const id = (ok.structuredContent as { id: string }).id;
      expect(resultText(ok)).toContain(id);
      const [row] = await t.ctx.db.select().from(reports).where(eq(reports.id, id));
      expect(row).toMatchObject({ slug, reason: "malware", details: "drive-by download" });
      const before = (await t.ctx.db.select().from(reports)).length;
      const bad = (await client.callTool({
        name: "report_abuse",
        arguments: { url: "https://example.com/", reason: "malware" },
      })) as CallResult;
      expect(bad.isError).toBe(true);
      expect(resultText(bad)).toContain("invalid_request");
      expect((await t.ctx.db.select().from(reports)).length).toBe(before);
    } finally {
      await client.close();
    }
  });
});

describe("a disabled drop", () => {
  it("answers 451 no-store on slug, vanity and custom-domain hosts, assets, 404s and a protected drop without reading storage", async () => {
    const ops = await operator();
    const team = await accountWithKey(t.ctx, "team");
    await t.ctx.db
      .update(accounts)
      .set({ vanitySub: `ven${Date.now() % 100000}` })
      .where(eq(accounts.id, team.account.id));
    const [owner] = await t.ctx.db.select().from(accounts).where(eq(accounts.id, team.account.id));
    const named = await createDrop(
      t.ctx,
      { account: owner!, via: "api_key", credentialKey: "k" },
      {
        files: [
          { path: "index.html", bytes: enc("<h1>site</h1>") },
          { path: "app.3f9a1c2b.js", bytes: enc("console.log(1)") },
          { path: "404.html", bytes: enc("own 404") },
        ],
        name: "shop",
        ttl: null,
      },
    );
    const hostname = `shop-${Date.now() % 100000}.example.net`;
    await t.ctx.db.insert(domains).values({
      hostname,
      accountId: owner!.id,
      slug: named.slug,
      status: "active",
      verificationValue: "v",
    });
    const vanityHost = `${owner!.vanitySub}--shop.${TEST_SERVE_DOMAIN}`;
    const protectedSlug = await anonDrop({ "index.html": "secret" });
    // Warm every cache: the bytes are in memory before the disable.
    expect((await visit(named.slug)).status).toBe(200);
    expect((await visitHost(vanityHost, "/")).status).toBe(200);
    expect((await visitHost(hostname, "/app.3f9a1c2b.js")).status).toBe(200);

    const res = await disableRoute.POST(
      apiRequest(`/admin/drops/${named.slug}/disable`, post(ops.apiKey, { reason: "phishing", note: "kit" })),
      p({ slug: named.slug }),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ slug: named.slug, disabled: { reason: "phishing", at: expect.any(String) } });

    storageMustNotBeRead();
    for (const [host, path] of [
      [`${named.slug}.${TEST_SERVE_DOMAIN}`, "/"],
      [`${named.slug}.${TEST_SERVE_DOMAIN}`, "/app.3f9a1c2b.js"],
      [`${named.slug}.${TEST_SERVE_DOMAIN}`, "/no-such-page"],
      [vanityHost, "/"],
      [hostname, "/app.3f9a1c2b.js"],
      [hostname, "/missing"],
    ] as const) {
      const r = await visitHost(host, path);
      expect(r.status, `${host}${path}`).toBe(451);
      expect(r.headers.get("cache-control")).toBe("no-store");
      expect(r.text).toContain("phishing");
      expect(r.text).toContain(`${TEST_BASE_URL}/report`);
      expect(r.text).not.toContain("<h1>site</h1>");
      expect(r.text).not.toContain("console.log");
    }
    restoreStorage?.();

    // A protected drop: 451, not the lock page.
    const protOwner = await accountWithKey(t.ctx, "free");
    const prot = await createDrop(
      t.ctx,
      { account: protOwner.account, via: "api_key", credentialKey: "k2" },
      {
        files: [{ path: "index.html", bytes: enc("private") }],
        ttl: null,
      },
    );
    await setAccess(t.ctx, protOwner.account, prot.slug, { mode: "password", password: "correct horse" });
    expect((await visit(prot.slug)).status).toBe(401);
    await disableRoute.POST(
      apiRequest(`/admin/drops/${prot.slug}/disable`, post(ops.apiKey, { reason: "malware" })),
      p({ slug: prot.slug }),
    );
    storageMustNotBeRead();
    const locked = await visit(prot.slug);
    expect(locked.status).toBe(451);
    expect(locked.text).toContain("malware");
    restoreStorage?.();
    expect(protectedSlug).toBeTruthy();

    // The owner sees it, may not write to it, may still delete it.
    const list = await (await dropsRoute.GET(apiRequest("/drops", get(team.apiKey)), p({}))).json();
    expect(list.drops.find((d: { slug: string }) => d.slug === named.slug).disabled).toEqual({
      reason: "phishing",
      at: expect.any(String),
    });
    const access = await accessRoute.PUT(
      apiRequest(`/drops/${named.slug}/access`, {
        method: "PUT",
        headers: { ...bearer(team.apiKey), "content-type": "application/json" },
        body: JSON.stringify({ mode: "password", password: "whatever123" }),
      }),
      p({ slug: named.slug }),
    );
    expect(access.status).toBe(403);
    const refused = await access.json();
    expect(refused.code).toBe("forbidden");
    expect(refused.hint).toContain("/report");
    const replace = await deployRoute.POST(
      apiRequest("/deploy?name=shop", {
        method: "POST",
        headers: { ...bearer(team.apiKey), "content-type": "text/html" },
        body: "<h1>new</h1>",
      }),
      p({}),
    );
    expect(replace.status).toBe(403);

    // The owner's webhook event, and enable reverses it (drop.enabled).
    const typeRows = await t.ctx.db
      .select()
      .from(events)
      .where(and(eq(events.accountId, owner!.id), eq(events.type, "drop.disabled")));
    expect(typeRows.map((e) => e.data)).toEqual([{ slug: named.slug, version: 1, reason: "phishing" }]);
    const enabled = await enableRoute.POST(
      apiRequest(`/admin/drops/${named.slug}/enable`, post(ops.apiKey)),
      p({ slug: named.slug }),
    );
    expect(await enabled.json()).toEqual({ slug: named.slug, disabled: null });
    expect((await visit(named.slug)).text).toContain("site");
    expect((await visitHost(hostname, "/app.3f9a1c2b.js")).status).toBe(200);
    const enabledEvents = await t.ctx.db
      .select()
      .from(events)
      .where(and(eq(events.accountId, owner!.id), eq(events.type, "drop.enabled")));
    expect(enabledEvents).toHaveLength(1);

    const deleted = await dropRoute.DELETE(
      apiRequest(`/drops/${prot.slug}`, del(protOwner.apiKey)),
      p({ slug: prot.slug }),
    );
    expect(deleted.status).toBe(200);
    expect(await auditActions(`drop:${named.slug}`)).toEqual(["drop.disabled", "drop.enabled"]);
  });
});

describe("a disabled drop refuses a render check", () => {
  it("POST /drops/{slug}/render of a disabled drop is 403 forbidden, like every other write", async () => {
    const ops = await operator();
    const owner = await accountWithKey(t.ctx, "free");
    const d = await createDrop(
      t.ctx,
      { account: owner.account, via: "api_key", credentialKey: "k" },
      { files: [{ path: "index.html", bytes: enc("<h1>x</h1>") }], ttl: null },
    );
    const render = () =>
      renderRoute.POST(
        apiRequest(`/drops/${d.slug}/render`, { method: "POST", headers: bearer(owner.apiKey) }),
        p({ slug: d.slug }),
      );
    const before = await render();
    expect(before.status).not.toBe(403);
    await disableRoute.POST(
      apiRequest(`/admin/drops/${d.slug}/disable`, post(ops.apiKey, { reason: "phishing" })),
      p({ slug: d.slug }),
    );
    const refused = await render();
    expect(refused.status).toBe(403);
    const body = await refused.json();
    expect(body.code).toBe("forbidden");
    expect(body.hint).toContain("/report");
  });
});

describe("suspended accounts", () => {
  it("suspend: every drop 451, the key refused 403 naming the appeal form; unsuspend reverses all of it", async () => {
    const ops = await operator();
    const user = await accountWithKey(t.ctx, "pro");
    const caller = { account: user.account, via: "api_key" as const, credentialKey: "k3" };
    const a = await createDrop(t.ctx, caller, { files: [{ path: "index.html", bytes: enc("one") }], ttl: null });
    const b = await createDrop(t.ctx, caller, { files: [{ path: "index.html", bytes: enc("two") }], ttl: null });
    expect((await visit(a.slug)).status).toBe(200);
    // A webhook with a delivery due: it pauses while the account is suspended.
    await t.ctx.db.insert(webhooks).values({
      id: `wh_${user.account.id.slice(-20)}`,
      accountId: user.account.id,
      url: "https://hooks.example.test/",
      events: ["drop.deployed"],
      secretSealed: "v1.x.y.z",
    });
    await t.ctx.db.transaction((tx) =>
      recordEvent(tx, {
        accountId: user.account.id,
        type: "drop.deployed",
        data: { slug: a.slug },
        now: new Date(t.clock.now),
      }),
    );
    const due = (at: number) =>
      claimDueDeliveries(t.ctx.db, new Date(at), new Date(at + 1000), 100).then((ds) =>
        ds.filter((d) => d.webhook.id === `wh_${user.account.id.slice(-20)}`),
      );

    const res = await suspendRoute.POST(
      apiRequest(`/admin/accounts/${user.account.id}/suspend`, post(ops.apiKey, { reason: "spam", note: "bulk" })),
      p({ id: user.account.id }),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: user.account.id, suspended: { reason: "spam", at: expect.any(String) } });
    storageMustNotBeRead();
    expect((await visit(a.slug)).status).toBe(451);
    expect((await visit(b.slug, "/x.css")).status).toBe(451);
    restoreStorage?.();
    expect(await due(t.clock.now + 1000)).toEqual([]);
    const listed = await dropsRoute.GET(apiRequest("/drops", get(user.apiKey)), p({}));
    expect(listed.status).toBe(403);
    const env = await listed.json();
    expect(env.code).toBe("forbidden");
    expect(env.hint).toContain(`${TEST_BASE_URL}/report`);

    const un = await unsuspendRoute.POST(
      apiRequest(`/admin/accounts/${user.account.id}/unsuspend`, post(ops.apiKey)),
      p({ id: user.account.id }),
    );
    expect(await un.json()).toEqual({ id: user.account.id, suspended: null });
    expect((await visit(a.slug)).text).toBe("one");
    expect((await dropsRoute.GET(apiRequest("/drops", get(user.apiKey)), p({}))).status).toBe(200);
    expect(await due(t.clock.now + 2000)).toHaveLength(1);
    expect(await auditActions(`account:${user.account.id}`)).toEqual(["account.suspended", "account.unsuspended"]);
  });
});

describe("address blocks", () => {
  it("refuse anonymous deploys, preflights and reports from an IPv4 or IPv6 range; an account's deploy goes through", async () => {
    const ops = await operator();
    const user = await accountWithKey(t.ctx, "free");
    const slug = await anonDrop();
    const v4 = await blocksRoute.POST(
      apiRequest("/admin/blocks", post(ops.apiKey, { cidr: "192.0.2.77/24", reason: "kits" })),
      p({}),
    );
    expect(v4.status).toBe(201);
    const v4Block = await v4.json();
    expect(v4Block).toMatchObject({ cidr: "192.0.2.0/24", reason: "kits", expires_at: null });
    const v6 = await blocksRoute.POST(
      apiRequest("/admin/blocks", post(ops.apiKey, { cidr: "2001:DB8:aa::/48", reason: "kits", expires_in: 3600 })),
      p({}),
    );
    const v6Block = await v6.json();
    expect(v6Block.cidr).toBe("2001:db8:aa::/48");
    const bad = await blocksRoute.POST(
      apiRequest("/admin/blocks", post(ops.apiKey, { cidr: "10.0.0.0/33", reason: "x" })),
      p({}),
    );
    expect(bad.status).toBe(400);

    const deploy = (ip: string, key?: string) =>
      deployRoute.POST(
        apiRequest("/deploy", {
          method: "POST",
          ip,
          headers: { "content-type": "text/html", ...(key ? bearer(key) : {}) },
          body: "<p>x</p>",
        }),
        p({}),
      );
    for (const ip of ["192.0.2.200", "2001:db8:aa:1::5", "::ffff:192.0.2.9"]) {
      const r = await deploy(ip);
      expect(r.status, ip).toBe(403);
      expect((await r.json()).code).toBe("forbidden");
    }
    const pre = await preflightRoute.POST(
      apiRequest(
        "/deploy/preflight",
        post(null, { files: { "a.txt": { sha256: "0".repeat(64), size: 1 } } }, "192.0.2.3"),
      ),
      p({}),
    );
    expect(pre.status).toBe(403);
    const rep = await reportsRoute.POST(
      apiRequest(
        "/reports",
        post(null, { url: `http://${slug}.${TEST_SERVE_DOMAIN}/`, reason: "spam" }, "2001:db8:aa::9"),
      ),
      p({}),
    );
    expect(rep.status).toBe(403);
    expect((await deploy("192.0.3.1")).status).toBeLessThan(300);
    expect((await deploy("2001:db8:ab::1")).status).toBeLessThan(300);
    expect((await deploy("192.0.2.200", user.apiKey)).status).toBeLessThan(300);

    const listed = await (await blocksRoute.GET(apiRequest("/admin/blocks", get(ops.apiKey)), p({}))).json();
    expect(listed.blocks.map((b: { cidr: string }) => b.cidr)).toEqual(
      expect.arrayContaining(["192.0.2.0/24", "2001:db8:aa::/48"]),
    );
    // An expired block no longer applies.
    t.clock.advance(3601);
    expect((await deploy("2001:db8:aa:1::5")).status).toBeLessThan(300);
    const removed = await blockRoute.DELETE(
      apiRequest(`/admin/blocks/${v4Block.id}`, del(ops.apiKey)),
      p({ id: v4Block.id }),
    );
    expect(removed.status).toBe(200);
    expect((await deploy("192.0.2.200")).status).toBeLessThan(300);
    expect(await auditActions("block:192.0.2.0/24")).toEqual(["block.added", "block.removed"]);
    expect(await auditActions("block:2001:db8:aa::/48")).toEqual(["block.added"]);
  });
});

describe("address blocks and IPv6 clients", () => {
  it("a block of one IPv6 address refuses the /64 that holds it; the next /64 deploys", async () => {
    const ops = await operator();
    const added = await blocksRoute.POST(
      apiRequest("/admin/blocks", post(ops.apiKey, { cidr: "2001:db8:bb:1::9/128", reason: "kits" })),
      p({}),
    );
    expect(added.status).toBe(201);
    const deploy = (ip: string) =>
      deployRoute.POST(
        apiRequest("/deploy", { method: "POST", ip, headers: { "content-type": "text/html" }, body: "<p>x</p>" }),
        p({}),
      );
    expect((await deploy("2001:db8:bb:1::9")).status).toBe(403);
    expect((await deploy("2001:db8:bb:1::1234")).status).toBe(403);
    expect((await deploy("2001:db8:bb:2::9")).status).toBeLessThan(300);
  });
});

describe("operator routes read JSON bodies only", () => {
  it("a text/plain, form or untyped body is 400 invalid_request and adds no block; application/json adds one", async () => {
    const ops = await operator();
    const body = JSON.stringify({ cidr: "198.51.100.0/24", reason: "kits" });
    for (const type of ["text/plain", "application/x-www-form-urlencoded", null]) {
      const r = await blocksRoute.POST(
        apiRequest("/admin/blocks", {
          method: "POST",
          headers: { ...bearer(ops.apiKey), ...(type ? { "content-type": type } : {}) },
          body,
        }),
        p({}),
      );
      expect([r.status, (await r.json()).code], String(type)).toEqual([400, "invalid_request"]);
    }
    expect(await auditActions("block:198.51.100.0/24")).toEqual([]);
    const json = await blocksRoute.POST(apiRequest("/admin/blocks", post(ops.apiKey, JSON.parse(body))), p({}));
    expect(json.status).toBe(201);
    expect(await auditActions("block:198.51.100.0/24")).toEqual(["block.added"]);
  });

  it("an operator route whose body is optional still takes no body at all", async () => {
    const ops = await operator();
    const slug = await anonDrop();
    const r = await enableRoute.POST(
      apiRequest(`/admin/drops/${slug}/enable`, { method: "POST", headers: bearer(ops.apiKey) }),
      p({ slug }),
    );
    expect(r.status).toBe(200);
  });
});

describe("the queue, resolving and the audit log", () => {
  it("lists reported drops most reported first, counting an address once; resolve disables; audit has one entry per action", async () => {
    const ops = await operator();
    const once = await anonDrop();
    const many = await anonDrop();
    const send = (slug: string, ip: string, reason = "phishing") =>
      reportsRoute.POST(
        apiRequest("/reports", post(null, { url: `http://${slug}.${TEST_SERVE_DOMAIN}/`, reason }, ip)),
        p({}),
      );
    await send(once, "203.0.113.1");
    await send(many, "203.0.113.2");
    await send(many, "203.0.113.2");
    await send(many, "203.0.113.3", "malware");
    const reportId = (await (await send(many, "203.0.113.4")).json()).id;

    const q = await (
      await queueRoute.GET(apiRequest("/admin/queue?status=open&limit=500", get(ops.apiKey)), p({}))
    ).json();
    const mine = q.items.filter((i: { slug: string }) => i.slug === many || i.slug === once);
    expect(mine.map((i: { slug: string }) => i.slug)).toEqual([many, once]);
    expect(mine[0].reports).toMatchObject({ count: 3, reasons: { phishing: 2, malware: 1 } });
    expect(mine[0]).toMatchObject({ owner: null, disabled: null, findings: [] });
    const bad = await queueRoute.GET(apiRequest("/admin/queue?status=maybe", get(ops.apiKey)), p({}));
    expect(bad.status).toBe(400);
    // limit and offset are decimal digits only, as every query integer (lib/input.ts queryInteger).
    for (const q of ["limit=1e2", "limit=0x10", "limit=", "offset=", "offset=0b1", "offset=%207"]) {
      for (const [path, route] of [
        ["/admin/queue", queueRoute],
        ["/admin/audit", auditRoute],
      ] as const) {
        const r = await route.GET(apiRequest(`${path}?${q}`, get(ops.apiKey)), p({}));
        expect([r.status, (await r.json()).code], `${path}?${q}`).toEqual([400, "invalid_request"]);
      }
    }

    const one = await (
      await adminReportRoute.GET(apiRequest(`/admin/reports/${reportId}`, get(ops.apiKey)), p({ id: reportId }))
    ).json();
    expect(one).toMatchObject({
      id: reportId,
      slug: many,
      reason: "phishing",
      status: "open",
      details: null,
      contact: null,
    });

    const resolved = await resolveRoute.POST(
      apiRequest(`/admin/reports/${reportId}/resolve`, post(ops.apiKey, { action: "disabled", note: "confirmed kit" })),
      p({ id: reportId }),
    );
    expect(resolved.status).toBe(200);
    expect((await resolved.json()).resolved).toHaveLength(4);
    expect((await visit(many)).status).toBe(451);
    const after = await (await queueRoute.GET(apiRequest("/admin/queue?limit=500", get(ops.apiKey)), p({}))).json();
    expect(after.items.map((i: { slug: string }) => i.slug)).not.toContain(many);
    const done = await (
      await queueRoute.GET(apiRequest("/admin/queue?status=resolved&limit=500", get(ops.apiKey)), p({}))
    ).json();
    expect(done.items.find((i: { slug: string }) => i.slug === many).disabled).toMatchObject({ reason: "phishing" });

    const del1 = await adminDropRoute.DELETE(apiRequest(`/admin/drops/${once}`, del(ops.apiKey)), p({ slug: once }));
    expect(await del1.json()).toEqual({ deleted: once });
    expect((await visit(once)).status).toBe(404);

    const audit = await (
      await auditRoute.GET(apiRequest(`/admin/audit?actor=${ops.id}`, get(ops.apiKey)), p({}))
    ).json();
    expect(audit.entries.map((e: { action: string; target: string }) => `${e.action} ${e.target}`)).toEqual([
      `drop.deleted drop:${once}`,
      `drop.disabled drop:${many}`,
      `report.resolved drop:${many}`,
    ]);
    expect(audit.total).toBe(3);
    expect(audit.entries[1]).toMatchObject({ actor: ops.id, reason: "phishing" });
    const received = await (
      await auditRoute.GET(apiRequest(`/admin/audit?target=drop:${many}`, get(ops.apiKey)), p({}))
    ).json();
    expect(received.entries.filter((e: { action: string }) => e.action === "report.received")).toHaveLength(4);
  });
});
