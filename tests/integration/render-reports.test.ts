import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { POST as deployPOST } from "@/app/deploy/route";
import * as reportsRoute from "@/app/reports/route";
import * as queueRoute from "@/app/admin/queue/route";
import * as disableRoute from "@/app/admin/drops/[slug]/disable/route";
import * as previewRoute from "@/app/previews/[file]/route";
import { accounts, drops, renderChecks } from "@/lib/db/schema";
import { apiRequest } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { pngSize, renderSuite } from "../support/render";

// A report starts a render check of the reported drop when the server has a browser (the real
// Chromium here), after the answer; the operators' queue then carries the drop's screenshot as
// `screenshot_url`. Without a browser a report starts nothing.

const suite = renderSuite();
const OPERATOR_EMAIL = "ops@example.test";
let operatorKey = "";
let ipN = 0;
const nextIp = () => `198.51.100.${++ipN}`;
const p = <P>(params: P) => ({ params: Promise.resolve(params) });

beforeAll(async () => {
  const t = suite.t;
  t.ctx.env = { ...t.ctx.env, ADMIN_EMAILS: [OPERATOR_EMAIL] };
  const a = await accountWithKey(t.ctx, "free");
  await t.ctx.db
    .update(accounts)
    .set({ email: OPERATOR_EMAIL, emailVerified: true })
    .where(eq(accounts.id, a.account.id));
  operatorKey = a.apiKey;
});

async function deploy(html: string): Promise<{ slug: string; url: string }> {
  const res = await deployPOST(
    apiRequest("/deploy", {
      method: "POST",
      body: JSON.stringify({ files: { "index.html": html } }),
      headers: { "content-type": "application/json" },
      ip: nextIp(),
    }),
    p({}),
  );
  expect(res.status).toBe(200);
  return (await res.json()) as { slug: string; url: string };
}

async function report(url: string, reason = "phishing"): Promise<Response> {
  return reportsRoute.POST(
    apiRequest("/reports", {
      method: "POST",
      body: JSON.stringify({ url, reason }),
      headers: { "content-type": "application/json" },
      ip: nextIp(),
    }),
    p({}),
  );
}

async function latestCheck(slug: string) {
  const [row] = await suite.t.ctx.db
    .select({ result: renderChecks.result, desktopId: renderChecks.desktopId, checkedAt: renderChecks.checkedAt })
    .from(renderChecks)
    .innerJoin(drops, eq(drops.id, renderChecks.dropId))
    .where(eq(drops.slug, slug));
  return row ?? null;
}

async function waitForCheck(slug: string, ms = 40_000) {
  const until = Date.now() + ms;
  for (;;) {
    const row = await latestCheck(slug);
    if (row) return row;
    if (Date.now() > until) throw new Error(`no render check of ${slug} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

type QueueItem = { slug: string; screenshot_url?: string; disabled: unknown };

async function queueItem(slug: string): Promise<QueueItem | undefined> {
  const res = await queueRoute.GET(apiRequest("/admin/queue?limit=100", { headers: bearer(operatorKey) }), p({}));
  expect(res.status).toBe(200);
  const body = (await res.json()) as { items: QueueItem[] };
  return body.items.find((i) => i.slug === slug);
}

describe("a report starts a render check of the reported drop", () => {
  it("after the answer: the drop gets a latest check, and the queue item its screenshot_url (a 1280×800 PNG)", async () => {
    const d = await deploy("<!doctype html><title>Bank</title><h1>Sign in to your bank</h1>");
    expect(await latestCheck(d.slug)).toBeNull();
    const res = await report(d.url);
    expect(res.status).toBe(202);
    // The answer does not wait for the browser.
    expect(await latestCheck(d.slug)).toBeNull();
    const row = await waitForCheck(d.slug);
    expect(row.result.status).toBe("ok");
    expect(row.result.title).toBe("Bank");
    const item = await queueItem(d.slug);
    expect(item?.screenshot_url).toBe(`http://localhost:3000/previews/${row.desktopId}.png`);
    const file = `${row.desktopId}.png`;
    const png = await previewRoute.GET(apiRequest(`/previews/${file}`), p({ file }));
    expect(png.status).toBe(200);
    expect(pngSize(new Uint8Array(await png.arrayBuffer()))).toEqual({ width: 1280, height: 800 });
  }, 60_000);

  it("a disabled drop's queue item has no screenshot_url, and a report of it starts no check", async () => {
    const d = await deploy("<!doctype html><title>Kit</title><p>kit</p>");
    expect((await report(d.url)).status).toBe(202);
    const first = await waitForCheck(d.slug);
    expect((await queueItem(d.slug))?.screenshot_url).toBeDefined();
    const off = await disableRoute.POST(
      apiRequest(`/admin/drops/${d.slug}/disable`, {
        method: "POST",
        body: JSON.stringify({ reason: "phishing" }),
        headers: { ...bearer(operatorKey), "content-type": "application/json" },
      }),
      p({ slug: d.slug }),
    );
    expect(off.status).toBe(200);
    const item = await queueItem(d.slug);
    expect(item?.disabled).not.toBeNull();
    expect(item?.screenshot_url).toBeUndefined();
    expect((await report(d.url, "appeal")).status).toBe(202);
    await new Promise((r) => setTimeout(r, 3_000));
    const after = await latestCheck(d.slug);
    expect(after?.desktopId).toBe(first.desktopId);
    expect(after?.checkedAt.getTime()).toBe(first.checkedAt.getTime());
  }, 60_000);

  it("without a browser set up, a report starts nothing", async () => {
    const saved = suite.t.ctx.env;
    suite.t.ctx.env = { ...saved, RENDER_BROWSER_PATH: undefined, RENDER_CDP_URL: undefined };
    try {
      const d = await deploy("<!doctype html><title>Plain</title><p>plain</p>");
      expect((await report(d.url)).status).toBe(202);
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await latestCheck(d.slug)).toBeNull();
      expect((await queueItem(d.slug))?.screenshot_url).toBeUndefined();
    } finally {
      suite.t.ctx.env = saved;
    }
  }, 30_000);
});
