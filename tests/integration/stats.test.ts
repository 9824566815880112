import { sql, type SQL } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as statsRoute from "@/app/drops/[slug]/stats/route";
import * as dropsRoute from "@/app/drops/route";
import * as limitsRoute from "@/app/limits/route";
import { anonymousCaller, type Caller } from "@/lib/auth/caller";
import { createDrop } from "@/lib/deploy/store";
import { runCleanup } from "@/lib/drops/lifecycle";
import { setDropAlias } from "@/lib/drops/aliases";
import { claimDrop } from "@/lib/drops/manage";
import { flushStats } from "@/lib/plane/node";
import type { DropStats } from "@/lib/schemas";
import { accountWithKey, bearer } from "../support/accounts";
import { requestAt, type HttpResult } from "../support/app-server";
import { cliAgainstRoutes } from "../support/cli";
import { apiRequest, suiteContext, TEST_SERVE_DOMAIN } from "../support/context";
import { connectInProcess, type CallResult } from "../support/mcp";
import { startDataPlane, type RunningPlane } from "../support/plane";

// Counts made by the data plane (issue 40): a scripted mix of people, bots, link unfurlers,
// 404s, 304s and referrers, sent to the self-hosted data plane, read back exactly through REST,
// MCP and the CLI; visitors deduplicated across flushes; retention per plan; nothing stored that
// names a visitor.

const t = suiteContext({ TRUST_PROXY: "1" }, { freshLimiter: true });
let plane: RunningPlane;
beforeAll(async () => {
  plane = await startDataPlane();
});
afterAll(async () => {
  await plane?.close();
});

const suite = cliAgainstRoutes("203.0.113.60", async (request, url) => {
  const m = /^\/drops\/([^/]+)\/stats$/.exec(url.pathname);
  return m ? statsRoute.GET(request, { params: Promise.resolve({ slug: m[1]! }) }) : null;
});

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";
const SAFARI =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const CURL = "curl/8.11.0";
const SLACK = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)";
const IMESSAGE = "facebookexternalhit/1.1 Facebot Twitterbot/1.0";
const ADDRESSES = ["198.51.100.71", "198.51.100.72", "198.51.100.73", "198.51.100.74"];

const enc = (s: string) => new TextEncoder().encode(s);
const INDEX = "<!doctype html><title>home</title><p>Welcome to the counted page.</p>";
const ABOUT = "<!doctype html><title>about</title><p>About us.</p>";
const STYLE = "body { color: #222 }";
const site = [
  { path: "index.html", bytes: enc(INDEX) },
  { path: "about.html", bytes: enc(ABOUT) },
  { path: "style.css", bytes: enc(STYLE) },
];
const callerOf = (account: Caller["account"]): Caller => ({
  account,
  via: "api_key",
  credentialKey: `test:${account?.id}`,
});

interface Visit {
  path: string;
  ua: string;
  ip: string;
  method?: string;
  headers?: Record<string, string>;
}

/** Sends visits to the data plane; the body bytes people received, as the counts should add them. */
async function send(slug: string, visits: Visit[]): Promise<{ bytes: number; answers: HttpResult[] }> {
  let bytes = 0;
  const answers: HttpResult[] = [];
  for (const v of visits) {
    const r = await requestAt(plane.port, `${slug}.${TEST_SERVE_DOMAIN}`, v.path, {
      method: v.method ?? "GET",
      headers: { "user-agent": v.ua, "x-forwarded-for": v.ip, ...v.headers },
    });
    answers.push(r);
    if (v.ua !== GOOGLEBOT && v.ua !== CURL && v.ua !== SLACK && v.ua !== IMESSAGE) bytes += r.body.byteLength;
  }
  return { bytes, answers };
}

async function readStats(slug: string, apiKey: string, query = ""): Promise<{ status: number; body: unknown }> {
  const res = await statsRoute.GET(apiRequest(`/drops/${slug}/stats${query}`, { headers: bearer(apiKey) }), {
    params: Promise.resolve({ slug }),
  });
  return { status: res.status, body: await res.json() };
}

/** The rows of a raw query (the drivers type db.execute's answer differently). */
const rowsOf = async <R>(query: SQL): Promise<R[]> => {
  const result: unknown = await t.ctx.db.execute(query);
  return (result as { rows: R[] }).rows;
};

const TODAY = "2026-11-01";
const SIX_DAYS_AGO = "2026-10-26";

describe("counts of a scripted mix", () => {
  it("give exact totals through REST, MCP and the CLI", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx, "pro");
    const d = await createDrop(t.ctx, callerOf(account), { files: site, ttl: null });
    const own = `https://${d.slug}.${TEST_SERVE_DOMAIN}/about`;
    const [a, b, , bot] = ADDRESSES as [string, string, string, string];
    const first = await send(d.slug, [
      // Person A: a view from a referrer, a stylesheet, a clean-URL view, then a 304 view.
      {
        path: "/",
        ua: CHROME,
        ip: a,
        headers: { referer: "https://News.Example.com/item?id=1", "cf-ipcountry": "DE" },
      },
      { path: "/style.css", ua: CHROME, ip: a, headers: { "cf-ipcountry": "DE" } },
      { path: "/about?utm_source=x", ua: CHROME, ip: a, headers: { "cf-ipcountry": "DE" } },
    ]);
    const etag = first.answers[0]!.headers.etag as string;
    expect(etag).toBeTruthy();
    const rest = await send(d.slug, [
      { path: "/", ua: CHROME, ip: a, headers: { "if-none-match": etag, "cf-ipcountry": "DE" } },
      // Person B: a view from the drop's own page (no referrer counted), HEAD, a 404.
      { path: "/", ua: FIREFOX, ip: b, headers: { referer: own, "cf-ipcountry": "XX" } },
      { path: "/", ua: FIREFOX, ip: b, method: "HEAD" },
      { path: "/missing", ua: FIREFOX, ip: b },
      // Person A's other browser: another visitor.
      { path: "/", ua: SAFARI, ip: a, headers: { "cf-ipcountry": "FR", referer: "https://news.example.com/" } },
      // Bots and unfurlers count apart, and only there.
      { path: "/", ua: GOOGLEBOT, ip: bot },
      { path: "/style.css", ua: CURL, ip: bot },
      { path: "/nothing-here", ua: GOOGLEBOT, ip: bot },
      { path: "/", ua: SLACK, ip: bot },
      { path: "/", ua: IMESSAGE, ip: bot },
    ]);
    expect(rest.answers.map((r) => r.status)).toEqual([304, 200, 200, 404, 200, 200, 200, 404, 200, 200]);
    await flushStats();

    const expected: DropStats = {
      slug: d.slug,
      from: SIX_DAYS_AGO,
      to: TODAY,
      totals: {
        views: 5,
        preview_views: 0,
        visitors: 3,
        requests: 3,
        bytes: first.bytes + rest.bytes,
        not_found: 1,
        bot_requests: 3,
        previews: 2,
      },
      days: [
        ...["2026-10-26", "2026-10-27", "2026-10-28", "2026-10-29", "2026-10-30", "2026-10-31"].map((date) => ({
          date,
          views: 0,
          preview_views: 0,
          visitors: 0,
          requests: 0,
          bytes: 0,
          not_found: 0,
        })),
        {
          date: TODAY,
          views: 5,
          preview_views: 0,
          visitors: 3,
          requests: 3,
          bytes: first.bytes + rest.bytes,
          not_found: 1,
        },
      ],
      paths: [
        { path: "/", views: 4 },
        { path: "/about", views: 1 },
      ],
      referrers: [{ host: "news.example.com", views: 2 }],
      countries: [
        { code: "DE", views: 3 },
        { code: "FR", views: 1 },
        { code: "unknown", views: 1 },
      ],
    };
    expect(first.bytes + rest.bytes).toBe(
      INDEX.length * 3 + ABOUT.length + STYLE.length + rest.answers[3]!.body.length,
    );
    const viaRest = await readStats(d.slug, apiKey);
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toEqual(expected);

    const client = await connectInProcess("modern", { ip: "203.0.113.61", credential: apiKey });
    try {
      const r = (await client.callTool({ name: "get_drop_stats", arguments: { slug: d.slug } })) as CallResult;
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toEqual(expected);
      expect(r.content[0]!.text).toContain("5 views by 3 visitors");
      const refused = (await client.callTool({
        name: "get_drop_stats",
        arguments: { slug: d.slug, from: "2025-01-01" },
      })) as CallResult;
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toContain("invalid_request");
    } finally {
      await client.close();
    }

    const json = await suite.cli(["stats", d.slug, "--json"], apiKey);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(expected);
    const table = await suite.cli(["stats", d.slug, "--from", TODAY, "--to", TODAY], apiKey);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain("Views 5 (0 on preview hosts) · visitors 3 · other requests 3");
    expect(table.stdout).toMatch(new RegExp(`${TODAY}\\s+5\\s+0\\s+3\\s+3\\s+${first.bytes + rest.bytes}\\s+1`));
    expect(table.stdout).toMatch(/news\.example\.com\s+2/);
    const usage = await suite.cli(["stats"], apiKey);
    expect(usage.code).toBe(2);
    const tooEarly = await suite.cli(["stats", d.slug, "--from", "2026-01-01", "--json"], apiKey);
    expect(tooEarly.code).toBe(1);
    expect(JSON.parse(tooEarly.stdout)).toMatchObject({ code: "invalid_request", status: 400 });

    // Later the same day the same people come back (as if through another process): views
    // add up, visitors do not (their hashes are already in the day's table).
    await send(d.slug, [
      { path: "/", ua: CHROME, ip: a },
      { path: "/about", ua: FIREFOX, ip: b },
      { path: "/", ua: CHROME, ip: ADDRESSES[2]! },
    ]);
    await flushStats();
    const again = (await readStats(d.slug, apiKey, `?from=${TODAY}`)).body as DropStats;
    expect(again.totals).toMatchObject({ views: 8, visitors: 4 });
    expect(again.days).toHaveLength(1);
    expect(again.paths).toEqual([
      { path: "/", views: 6 },
      { path: "/about", views: 2 },
    ]);
  });
});

describe("views on preview hosts", () => {
  it("count toward the drop like live ones, and preview_views is their part of views, in totals and each day (REST, MCP, CLI)", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx, "pro");
    const d = await createDrop(t.ctx, callerOf(account), { files: site, ttl: null, name: "previewed" });
    await createDrop(t.ctx, callerOf(account), { files: site, ttl: null, name: "previewed" });
    await setDropAlias(t.ctx, account, d.slug, "staging", 1);
    const [a, b, c, bot] = ADDRESSES as [string, string, string, string];
    const live = await send(d.slug, [
      { path: "/", ua: CHROME, ip: a },
      { path: "/about", ua: FIREFOX, ip: b },
    ]);
    const v1 = await send(`${d.slug}---v1`, [
      { path: "/", ua: CHROME, ip: a },
      { path: "/style.css", ua: CHROME, ip: a },
      // A bot on a preview host is a bot's request, as on the live host.
      { path: "/", ua: GOOGLEBOT, ip: bot },
    ]);
    const alias = await send(`${d.slug}---staging`, [
      { path: "/", ua: SAFARI, ip: c },
      { path: "/about", ua: SAFARI, ip: c },
      // A version the drop does not keep: the service's 404 page, a request of the drop's, no view.
    ]);
    const gone = await send(`${d.slug}---v9`, [{ path: "/", ua: SAFARI, ip: c }]);
    expect([...live.answers, ...v1.answers, ...alias.answers, ...gone.answers].map((r) => r.status)).toEqual([
      200, 200, 200, 200, 200, 200, 200, 404,
    ]);
    await flushStats();
    const bytes = live.bytes + v1.bytes + alias.bytes + gone.bytes;
    const s = (await readStats(d.slug, apiKey, `?from=${TODAY}`)).body as DropStats;
    expect(s.totals).toEqual({
      views: 5,
      preview_views: 3,
      visitors: 3,
      requests: 2,
      bytes,
      not_found: 1,
      bot_requests: 1,
      previews: 0,
    });
    expect(s.days).toEqual([
      { date: TODAY, views: 5, preview_views: 3, visitors: 3, requests: 2, bytes, not_found: 1 },
    ]);
    expect(s.paths).toEqual([
      { path: "/", views: 3 },
      { path: "/about", views: 2 },
    ]);

    const client = await connectInProcess("modern", { ip: "203.0.113.62", credential: apiKey });
    try {
      const r = (await client.callTool({
        name: "get_drop_stats",
        arguments: { slug: d.slug, from: TODAY },
      })) as CallResult;
      expect(r.structuredContent).toEqual(s);
      expect(r.content[0]!.text).toContain("5 views by 3 visitors (3 of the views through preview hosts)");
    } finally {
      await client.close();
    }
    const table = await suite.cli(["stats", d.slug, "--from", TODAY], apiKey);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain("Views 5 (3 on preview hosts) · visitors 3");
    expect(table.stdout).toMatch(/DATE\s+VIEWS\s+ON PREVIEWS\s+VISITORS/);
    expect(table.stdout).toMatch(new RegExp(`${TODAY}\\s+5\\s+3\\s+3\\s+2\\s+${bytes}\\s+1`));
  });
});

describe("methods a drop host does not serve", () => {
  it("a POST or OPTIONS answered 405 counts in requests, looked up or cached, and never as a view", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx, "pro");
    const d = await createDrop(t.ctx, callerOf(account), { files: site, ttl: null });
    // The first 405 comes before any lookup of the drop (its manifest is not cached yet).
    const cold = await send(d.slug, [{ path: "/", ua: CHROME, ip: ADDRESSES[0]!, method: "POST" }]);
    const warm = await send(d.slug, [
      { path: "/", ua: CHROME, ip: ADDRESSES[1]!, method: "GET" },
      { path: "/form", ua: FIREFOX, ip: ADDRESSES[1]!, method: "OPTIONS" },
      { path: "/", ua: SAFARI, ip: ADDRESSES[2]!, method: "POST" },
    ]);
    expect([...cold.answers, ...warm.answers].map((r) => r.status)).toEqual([405, 200, 405, 405]);
    // The cold one is counted once its lookup answers.
    await new Promise((r) => setTimeout(r, 300));
    await flushStats();
    const { body } = await readStats(d.slug, apiKey);
    expect((body as DropStats).totals).toMatchObject({
      views: 1,
      visitors: 1,
      requests: 3,
      bytes: cold.bytes + warm.bytes,
    });
  });
});

describe("the range and the plan's retention", () => {
  it("reads the last 7 days by default, and refuses a from before the retention or a malformed date with 400", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx, "free");
    const d = await createDrop(t.ctx, callerOf(account), { files: site, ttl: null });
    const ok = (await readStats(d.slug, apiKey)).body as DropStats;
    expect([ok.from, ok.to, ok.days.length]).toEqual([SIX_DAYS_AGO, TODAY, 7]);
    expect(ok.totals).toEqual({
      views: 0,
      preview_views: 0,
      visitors: 0,
      requests: 0,
      bytes: 0,
      not_found: 0,
      bot_requests: 0,
      previews: 0,
    });
    const early = await readStats(d.slug, apiKey, "?from=2026-10-25");
    expect(early.status).toBe(400);
    expect(early.body).toMatchObject({
      code: "invalid_request",
      limit: "stats_retention_days",
      allowed: 7,
      plan: "free",
    });
    for (const q of ["?from=2026-13-01", "?to=yesterday", "?from=2026-11-01&to=2026-10-30", "?to=2026-11-02", "?from="])
      expect((await readStats(d.slug, apiKey, q)).body, q).toMatchObject({ code: "invalid_request" });
    const { apiKey: proKey, account: pro } = await accountWithKey(t.ctx, "pro");
    const p = await createDrop(t.ctx, callerOf(pro), { files: site, ttl: null });
    const ninety = await readStats(p.slug, proKey, "?from=2026-08-04");
    expect(ninety.status).toBe(200);
    expect((ninety.body as DropStats).days).toHaveLength(90);
    expect((await readStats(p.slug, proKey, "?from=2026-08-03")).status).toBe(400);
    // Another account's drop is no drop of this one.
    expect((await readStats(p.slug, apiKey)).status).toBe(404);
  });

  it("GET /limits states stats_retention_days and GET /drops gives each drop its views_7d", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx, "team");
    const limitsRes = await limitsRoute.GET(apiRequest("/limits", { headers: bearer(apiKey) }), {
      params: Promise.resolve({}),
    });
    expect(((await limitsRes.json()) as { limits: Record<string, number> }).limits.stats_retention_days).toBe(365);
    const d = await createDrop(t.ctx, callerOf(account), { files: site, ttl: null });
    await send(d.slug, [
      { path: "/", ua: CHROME, ip: ADDRESSES[0]! },
      { path: "/about", ua: CHROME, ip: ADDRESSES[0]! },
      { path: "/", ua: GOOGLEBOT, ip: ADDRESSES[3]! },
    ]);
    await flushStats();
    const list = await dropsRoute.GET(apiRequest("/drops", { headers: bearer(apiKey) }), {
      params: Promise.resolve({}),
    });
    const body = (await list.json()) as { drops: { slug: string; views_7d: number }[] };
    expect(body.drops.find((x) => x.slug === d.slug)?.views_7d).toBe(2);
  });
});

describe("anonymous drops", () => {
  it("are counted from their first view, and the counts are readable once claimed", async () => {
    const d = await createDrop(t.ctx, anonymousCaller, { files: site, ttl: null });
    await send(d.slug, [
      { path: "/", ua: CHROME, ip: ADDRESSES[0]! },
      { path: "/", ua: FIREFOX, ip: ADDRESSES[1]! },
    ]);
    await flushStats();
    const { account, apiKey } = await accountWithKey(t.ctx, "free");
    expect((await readStats(d.slug, apiKey)).status).toBe(404);
    await claimDrop(t.ctx, account, { slug: d.slug, claim_token: d.claim_token! });
    const s = (await readStats(d.slug, apiKey)).body as DropStats;
    expect(s.totals).toMatchObject({ views: 2, visitors: 2 });
  });
});

describe("one flush for many drops", () => {
  it("writes every drop's day in one batch, and a drop deleted before the flush loses only its own counts", async () => {
    const kept = await createDrop(t.ctx, anonymousCaller, { files: site, ttl: null });
    const gone = await createDrop(t.ctx, anonymousCaller, { files: site, ttl: null });
    const also = await createDrop(t.ctx, anonymousCaller, { files: site, ttl: null });
    for (const slug of [kept.slug, gone.slug, also.slug])
      await send(slug, [
        { path: "/", ua: CHROME, ip: ADDRESSES[0]! },
        { path: "/about.html", ua: SAFARI, ip: ADDRESSES[2]! },
      ]);
    await t.ctx.db.execute(sql`delete from drops where slug = ${gone.slug}`);
    await flushStats();
    const rows = await rowsOf<{ slug: string; views: number; visitors: number }>(
      sql`select d.slug, s.views, s.visitors from drop_stats s join drops d on d.id = s.drop_id
          where d.slug in (${kept.slug}, ${gone.slug}, ${also.slug}) order by d.slug`,
    );
    const found = Object.fromEntries(rows.map((r) => [r.slug, [Number(r.views), Number(r.visitors)]]));
    expect(found).toEqual({ [kept.slug]: [2, 2], [also.slug]: [2, 2] });
  });
});

describe("nothing stored names a visitor", () => {
  it("no row of any table holds an address or user agent that was counted, and a final day keeps no hash or salt", async () => {
    const { account } = await accountWithKey(t.ctx, "pro");
    const d = await createDrop(t.ctx, callerOf(account), { files: site, ttl: null });
    await send(d.slug, [
      { path: "/", ua: CHROME, ip: ADDRESSES[0]! },
      { path: "/", ua: SAFARI, ip: ADDRESSES[1]! },
      { path: "/about", ua: FIREFOX, ip: ADDRESSES[2]! },
    ]);
    await flushStats();
    // Every row of every table as JSON text (what a dump of the database holds).
    const dump = async () => {
      const tables = await rowsOf<{ table_name: string }>(
        sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
      );
      let text = "";
      for (const { table_name } of tables) {
        const rows = await rowsOf<{ j: string }>(sql.raw(`select row_to_json(x)::text as j from "${table_name}" x`));
        text += rows.map((r) => r.j).join("\n");
      }
      return text;
    };
    const before = await dump();
    expect(before).toContain(d.slug);
    for (const secret of [...ADDRESSES, CHROME, SAFARI, FIREFOX, "Chrome/131", "Firefox/133"])
      expect(before.includes(secret), secret).toBe(false);
    const count = async (table: string) =>
      Number((await rowsOf<{ n: number }>(sql.raw(`select count(*)::int as n from ${table}`)))[0]!.n);
    expect(await count("drop_stats_visitors")).toBeGreaterThan(0);
    // The day's salt: a row here, or only in Redis when the service has it (the hosted stack).
    expect(await count("stats_salts")).toBe(t.ctx.limiter.shared ? 0 : 1);

    // The day ends; once it is final its hashes and salt are gone, its counts stay.
    t.clock.advance(24 * 3600);
    await runCleanup(t.ctx);
    expect(await count("drop_stats_visitors")).toBe(0);
    expect(await count("stats_salts")).toBe(0);
    expect(await count("drop_stats")).toBeGreaterThan(0);
    // Past the longest retention the rows themselves go.
    t.clock.advance(365 * 24 * 3600);
    await runCleanup(t.ctx);
    expect(await count("drop_stats")).toBe(0);
  });
});
