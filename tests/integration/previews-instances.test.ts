import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "@/lib/auth/caller";
import { createContext, type AppContext } from "@/lib/context";
import { createDrop } from "@/lib/deploy/store";
import { deleteDropAlias, setDropAlias } from "@/lib/drops/aliases";
import { metrics } from "@/lib/metrics/registry";
import { serveRequest } from "@/lib/serve";
import { FEED_STALE_MS } from "@/lib/serve/feed";
import { accountWithKey } from "../support/accounts";
import { dropRequest, makeTestContext } from "../support/context";
import { startPgServer } from "../support/pg-server";

// Aliases across instances (DESIGN round 5, "Previews" → "Caching and the long tail"): an alias
// moved on instance A is served at its new version by instance B within the change feed's bound
// (FEED_STALE_MS, 2 s), on the real clock: B is polled, and every request B began more than the
// bound after the move answered the new version. Between changes B answers preview hosts from
// its cached manifests (one per drop and version or alias), asking the database nothing.

const enc = (s: string) => new TextEncoder().encode(s);
const callerOf = (account: Caller["account"]): Caller => ({
  account,
  via: "api_key",
  credentialKey: `t:${account?.id}`,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long past the bound the test keeps polling before it calls the change lost (a loaded machine). */
const SLACK_MS = 5000;

async function visit(ctx: AppContext, label: string): Promise<{ status: number; text: string }> {
  const res = await serveRequest(ctx, dropRequest(label, "/"));
  return { status: res.status, text: await res.text() };
}

/** Manifest lookups that went to the database (misses and revalidations), every context of the process. */
async function manifestLookups(): Promise<number> {
  const { values } = await metrics().cacheRequests.get();
  return values
    .filter((v) => v.labels.cache === "manifest" && v.labels.result !== "hit")
    .reduce((n, v) => n + v.value, 0);
}

/**
 * Polls `label` on `b` from `changedAt` (a time after the change committed) until it answers
 * `want`; fails if any request begun at least FEED_STALE_MS after `changedAt` answered otherwise,
 * or if none answered `want` within the bound and SLACK_MS. Returns how long it took.
 */
async function servedWithinBound(b: AppContext, label: string, want: string, changedAt: number): Promise<number> {
  for (;;) {
    const began = Date.now();
    const { text } = await visit(b, label);
    if (text === want) return began - changedAt;
    expect(began - changedAt, `${label} still answered "${text}"`).toBeLessThan(FEED_STALE_MS);
    if (Date.now() - changedAt > FEED_STALE_MS + SLACK_MS) throw new Error(`${label} never answered "${want}"`);
    await sleep(20);
  }
}

/** Requests to these hosts on `b` for `ms` of real time (several feed reads): what they answered. */
async function trafficFor(b: AppContext, labels: string[], ms: number): Promise<Set<string>> {
  const seen = new Set<string>();
  const until = Date.now() + ms;
  while (Date.now() < until) {
    for (const label of labels) seen.add(`${label} ${(await visit(b, label)).text}`);
    await sleep(20);
  }
  return seen;
}

function suite(name: string, open: () => Promise<{ a: AppContext; b: AppContext; close: () => Promise<void> }>) {
  describe(name, () => {
    let a: AppContext;
    let b: AppContext;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ a, b, close } = await open());
    });
    afterAll(() => close());

    it("an alias moved or deleted on A is served so by B within the feed's bound; B's preview manifests stay cached in between", async () => {
      const { account } = await accountWithKey(a, "pro");
      const name = `pi-${Math.random().toString(36).slice(2, 8)}`;
      let slug = "";
      for (const v of [1, 2, 3]) {
        const files = [{ path: "index.html", bytes: enc(`<p>${v}</p>`) }];
        slug = (await createDrop(a, callerOf(account), { files, ttl: null, name })).slug;
      }
      await setDropAlias(a, account, slug, "staging", 1);
      const hosts = [slug, `${slug}---v1`, `${slug}---v2`, `${slug}---staging`];
      const first = await Promise.all(hosts.map((h) => visit(b, h)));
      expect(first.map((r) => r.text)).toEqual(["<p>3</p>", "<p>1</p>", "<p>2</p>", "<p>1</p>"]);

      // Cached: traffic over more than one feed interval asks the database for no manifest.
      const before = await manifestLookups();
      const steady = await trafficFor(b, hosts, 1500);
      expect([...steady].sort()).toEqual(
        [`${slug} <p>3</p>`, `${slug}---v1 <p>1</p>`, `${slug}---v2 <p>2</p>`, `${slug}---staging <p>1</p>`].sort(),
      );
      expect(await manifestLookups()).toBe(before);

      // Moved on A: B follows within the bound.
      await setDropAlias(a, account, slug, "staging", 2);
      const moved = await servedWithinBound(b, `${slug}---staging`, "<p>2</p>", Date.now());
      expect(moved).toBeLessThan(FEED_STALE_MS + SLACK_MS);

      // The feed named the drop once: each of its hosts is loaded again once, then cached again.
      await Promise.all(hosts.map((h) => visit(b, h)));
      const reloaded = await manifestLookups();
      expect(reloaded - before).toBe(hosts.length);
      const after = await trafficFor(b, hosts, 1500);
      expect([...after].sort()).toEqual(
        [`${slug} <p>3</p>`, `${slug}---v1 <p>1</p>`, `${slug}---v2 <p>2</p>`, `${slug}---staging <p>2</p>`].sort(),
      );
      expect(await manifestLookups()).toBe(reloaded);

      // Deleted on A: B answers the "no preview" page within the bound.
      await deleteDropAlias(a, account, slug, "staging");
      const deletedAt = Date.now();
      const page = await visit(a, `${slug}---staging`);
      expect(page.text).toContain("No preview named staging");
      await servedWithinBound(b, `${slug}---staging`, page.text, deletedAt);
      expect((await visit(b, `${slug}---staging`)).status).toBe(404);
      expect((await visit(b, slug)).text).toBe("<p>3</p>");
    });
  });
}

suite("on PGlite (two instances' caches over one database)", async () => {
  const t = await makeTestContext({}, { now: () => Date.now() });
  // A second instance: the serve caches and the feed's state are per context.
  return { a: t.ctx, b: { ...t.ctx }, close: () => t.close() };
});

suite("on a PostgreSQL server (two contexts, each with its own pool)", async () => {
  const server = await startPgServer();
  const t = await makeTestContext({ DATABASE_URL: server.url }, { now: () => Date.now() });
  const b = await createContext(t.ctx.env, { now: () => Date.now() });
  return {
    a: t.ctx,
    b,
    async close() {
      await b.dbHandle.close();
      await t.close();
      await server.stop();
    },
  };
});
