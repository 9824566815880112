import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as viewersRoute from "@/app/drops/[slug]/viewers/route";
import { findDropBySlug } from "@/lib/db/queries";
import { runCleanup } from "@/lib/drops/lifecycle";
import { VIEWERS_KEPT_DAYS } from "@/lib/plans";
import { resolveHost } from "@/lib/serve/host";
import { serveDropResult } from "@/lib/serve/serve";
import type { ServeRequest } from "@/lib/serve/types";
import { countAnswer } from "@/lib/stats/count";
import { accountWithKey, bearer } from "../support/accounts";
import { apiRequest, suiteContext, TEST_BASE_URL, TEST_SERVE_DOMAIN } from "../support/context";
import { startSmtpRecorder, type SmtpRecorder } from "../support/smtp";
import { cookiePair, mailedLink, sharedDrop, visit } from "../support/sharing";

// Who came to an emails-only drop: GET /drops/{slug}/viewers, fed by the counts the data plane
// makes after each answer (lib/stats/count.ts), for the owner only, kept 90 days.

let smtp: SmtpRecorder;
beforeAll(async () => {
  smtp = await startSmtpRecorder();
});
afterAll(() => smtp.close());
const t = suiteContext(() => ({ SMTP_URL: smtp.url, MAIL_FROM: "no-reply@example.test" }), { freshLimiter: true });

const hosts = { serveDomain: TEST_SERVE_DOMAIN, appHost: new URL(TEST_BASE_URL).host };

/** A request to a drop host answered and counted as the data plane does (serve, then countAnswer). */
async function counted(label: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  const host = `${label}.${TEST_SERVE_DOMAIN}`;
  const h = new Headers({ host, "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0", ...headers });
  const req: ServeRequest = { method: "GET", pathname: path, search: "", headers: h };
  const action = resolveHost(host, hosts);
  const r = await serveDropResult(t.ctx, action, req);
  countAnswer(t.ctx, hosts, action, req, r);
  return r.status;
}

async function viewersOf(apiKey: string, slug: string) {
  const res = await viewersRoute.GET(apiRequest(`/drops/${slug}/viewers`, { headers: bearer(apiKey) }), {
    params: Promise.resolve({ slug }),
  });
  return { status: res.status, json: (await res.json()) as { viewers?: Record<string, unknown>[]; code?: string } };
}

const settle = () => new Promise((r) => setTimeout(r, 200));

describe("GET /drops/{slug}/viewers", () => {
  it("lists each address whose link was opened, with first and last seen and its views as the stats count them", async () => {
    const { owner, slug } = await sharedDrop(t, ["ana@x.org", "@client.com"]);
    expect((await viewersOf(owner.apiKey, slug)).json).toEqual({ viewers: [] });
    const first = t.ctx.now();
    const ana = cookiePair(await visit(t, slug, (await mailedLink(t, smtp, slug, "ana@x.org")).path));
    // Asked for a link but never opened it: not a viewer.
    await mailedLink(t, smtp, slug, "bob@client.com");
    t.clock.advance(60);
    expect(await counted(slug, "/", { cookie: ana })).toBe(200);
    expect(await counted(slug, "/about", { cookie: ana })).toBe(200);
    // Not views: an asset, and a page answered without the cookie.
    expect(await counted(slug, "/style.css", { cookie: ana })).toBe(200);
    expect(await counted(slug, "/")).toBe(401);
    await settle();
    const got = await viewersOf(owner.apiKey, slug);
    expect(got.status).toBe(200);
    expect(got.json.viewers).toEqual([
      {
        email: "ana@x.org",
        first_seen: new Date(first).toISOString(),
        last_seen: new Date(first + 60_000).toISOString(),
        views: 2,
      },
    ]);
  });

  it("is the owner's: another account gets 404, no credential 401", async () => {
    const { slug } = await sharedDrop(t, ["ana@x.org"]);
    const other = await accountWithKey(t.ctx);
    const r = await viewersOf(other.apiKey, slug);
    expect(r.status).toBe(404);
    expect(r.json.code).toBe("not_found");
    const none = await viewersRoute.GET(apiRequest(`/drops/${slug}/viewers`), { params: Promise.resolve({ slug }) });
    expect(none.status).toBe(401);
  });

  it(`forgets a viewer not seen for ${VIEWERS_KEPT_DAYS} days`, async () => {
    const { owner, slug } = await sharedDrop(t, ["ana@x.org"]);
    await visit(t, slug, (await mailedLink(t, smtp, slug, "ana@x.org")).path);
    expect((await viewersOf(owner.apiKey, slug)).json.viewers).toHaveLength(1);
    t.clock.advance(VIEWERS_KEPT_DAYS * 86_400 + 60);
    expect((await viewersOf(owner.apiKey, slug)).json.viewers).toHaveLength(0);
    await runCleanup(t.ctx);
    const dropId = (await findDropBySlug(t.ctx.db, slug))!.id;
    const left = await t.ctx.db.execute(`select count(*)::int as n from drop_viewers where drop_id = '${dropId}'`);
    expect(JSON.stringify(left)).toContain('"n":0');
  });
});
