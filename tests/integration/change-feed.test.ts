import pg from "pg";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Caller } from "@/lib/auth/caller";
import { createContext, type AppContext } from "@/lib/context";
import { createDrop } from "@/lib/deploy/store";
import { setAccess } from "@/lib/drops/access";
import { deleteDrop } from "@/lib/drops/manage";
import { rollbackToVersion } from "@/lib/drops/versions";
import { metrics } from "@/lib/metrics/registry";
import { MANIFEST_REVALIDATE_MS } from "@/lib/serve/cache";
import { resolveHost } from "@/lib/serve/host";
import { serveDrop } from "@/lib/serve/serve";
import { accountWithKey } from "../support/accounts";
import { makeTestContext, TEST_BASE_URL, TEST_SERVE_DOMAIN } from "../support/context";
import { startPgServer } from "../support/pg-server";

// The change feed (lib/serve/feed.ts over drop_changes): a second instance keeps its cached
// manifests while traffic is spread over many drops, asking the database about none of them,
// and still serves a replace, rollback, access change, disable, delete or domain change made by
// the first within MANIFEST_REVALIDATE_MS: on PGlite (two instances' caches over one database)
// and on a real PostgreSQL server (two processes' worth of contexts, and a transaction that
// commits after a later one).

const DROPS = 30;
const enc = (s: string) => new TextEncoder().encode(s);
const files = (m: Record<string, string>) => Object.entries(m).map(([p, c]) => ({ path: p, bytes: enc(c) }));
const callerOf = (account: Caller["account"]): Caller => ({
  account,
  via: "api_key",
  credentialKey: `t:${account?.id}`,
});

async function visit(ctx: AppContext, host: string, p = "/"): Promise<{ status: number; text: string }> {
  const action = resolveHost(host.includes(".example") ? host : `${host}.${TEST_SERVE_DOMAIN}`, {
    serveDomain: TEST_SERVE_DOMAIN,
    appHost: new URL(TEST_BASE_URL).host,
  });
  const res = await serveDrop(ctx, action, { method: "GET", pathname: p, headers: new Headers() });
  return { status: res.status, text: await res.text() };
}

/** Manifest lookups that went to the database (misses and revalidations), all contexts. */
async function manifestLookups(): Promise<number> {
  const { values } = await metrics().cacheRequests.get();
  return values
    .filter((v) => v.labels.cache === "manifest" && v.labels.result !== "hit")
    .reduce((n, v) => n + v.value, 0);
}

function suite(
  name: string,
  concurrent: boolean,
  open: () => Promise<{
    a: AppContext;
    b: AppContext;
    clock: { now: number };
    url?: string;
    close: () => Promise<void>;
  }>,
) {
  describe(name, () => {
    let a: AppContext;
    let b: AppContext;
    let clock: { now: number };
    let url: string | undefined;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ a, b, clock, url, close } = await open());
    });
    afterAll(() => close());

    it("keeps manifests over many drops without asking per request, and serves every kind of change within the window", async () => {
      const { account } = await accountWithKey(a, "team");
      const caller = callerOf(account);
      const slugs: string[] = [];
      for (let i = 0; i < DROPS; i++) {
        const d = await createDrop(a, caller, {
          files: files({ "index.html": `page ${i}` }),
          ttl: null,
          name: `s${i}`,
        });
        slugs.push(d.slug);
      }
      for (let i = 0; i < DROPS; i++) expect((await visit(b, slugs[i]!)).text).toBe(`page ${i}`);

      // Traffic spread over all the drops for several windows: the feed is read, no manifest is.
      const before = await manifestLookups();
      for (let round = 0; round < 4; round++) {
        clock.now += MANIFEST_REVALIDATE_MS;
        for (let i = 0; i < DROPS; i++) expect((await visit(b, slugs[i]!)).text).toBe(`page ${i}`);
      }
      expect(await manifestLookups()).toBe(before);

      // Every kind of change, made by a, while b keeps serving the others from memory.
      await createDrop(a, caller, { files: files({ "index.html": "replaced" }), ttl: null, name: "s1" });
      await createDrop(a, caller, { files: files({ "index.html": "second" }), ttl: null, name: "s2" });
      await rollbackToVersion(a, account, slugs[2], 1);
      await setAccess(a, account, slugs[3], { mode: "password", password: "correct horse battery" });
      await deleteDrop(a, account, slugs[4]);
      await a.db.execute(
        sql`update drops set disabled_reason = 'malware', disabled_at = now() where slug = ${slugs[5]!}`,
      );
      await a.db.execute(sql`insert into domains (hostname, account_id, slug, status, verification_value)
        values ('www.feed.example', ${account.id}, ${slugs[6]!}, 'active', 'v')`);
      expect((await visit(b, "www.feed.example")).text).toBe("page 6");

      const mid = await manifestLookups();
      clock.now += MANIFEST_REVALIDATE_MS;
      expect((await visit(b, slugs[1]!)).text).toBe("replaced");
      expect((await visit(b, slugs[2]!)).text).toBe("page 2");
      expect((await visit(b, slugs[3]!)).status).toBe(401);
      expect((await visit(b, slugs[4]!)).status).toBe(404);
      expect((await visit(b, slugs[5]!)).status).toBe(451);
      for (let i = 7; i < DROPS; i++) expect((await visit(b, slugs[i]!)).text).toBe(`page ${i}`);
      // Only the changed drops were looked up again.
      expect((await manifestLookups()) - mid).toBe(5);

      await a.db.execute(sql`update domains set slug = ${slugs[7]!} where hostname = 'www.feed.example'`);
      clock.now += MANIFEST_REVALIDATE_MS;
      expect((await visit(b, "www.feed.example")).text).toBe("page 7");
      await a.db.execute(sql`delete from domains where hostname = 'www.feed.example'`);
      clock.now += MANIFEST_REVALIDATE_MS;
      expect((await visit(b, "www.feed.example")).status).toBe(404);
    });

    it("prunes rows older than ten minutes, once a minute, and keeps the newer ones", async () => {
      await a.db.execute(sql`insert into drop_changes (kind, ref, at) values
        ('account', 'old', now() - interval '11 minutes'), ('account', 'new', now() - interval '9 minutes')`);
      clock.now += 61_000;
      await visit(b, "nothing-here");
      const left = async () =>
        (
          (await a.db.execute(sql`select ref from drop_changes where ref in ('old', 'new') order by ref`)) as {
            rows: { ref: string }[];
          }
        ).rows.map((r) => r.ref);
      for (let i = 0; i < 50 && (await left()).includes("old"); i++) await new Promise((r) => setTimeout(r, 50));
      expect(await left()).toEqual(["new"]);
    });

    // PGlite runs one transaction at a time: commits cannot interleave there.
    if (concurrent)
      it("sees a change whose transaction commits after a later one's (feed read by transaction id)", async () => {
        const { account } = await accountWithKey(a, "pro");
        const caller = callerOf(account);
        const x = await createDrop(a, caller, { files: files({ "index.html": "x" }), ttl: null, name: "x" });
        const y = await createDrop(a, caller, { files: files({ "index.html": "y" }), ttl: null, name: "y" });
        expect((await visit(b, x.slug)).text).toBe("x");
        expect((await visit(b, y.slug)).text).toBe("y");
        const early = new pg.Client({ connectionString: url! });
        const late = new pg.Client({ connectionString: url! });
        await early.connect();
        await late.connect();
        try {
          // early takes its transaction id (and its feed row's seq) first, and commits last.
          await early.query("begin");
          await early.query("update drops set disabled_reason = 'spam', disabled_at = now() where slug = $1", [x.slug]);
          await late.query("update drops set disabled_reason = 'spam', disabled_at = now() where slug = $1", [y.slug]);
          clock.now += MANIFEST_REVALIDATE_MS;
          expect((await visit(b, y.slug)).status).toBe(451);
          expect((await visit(b, x.slug)).text).toBe("x");
          await early.query("commit");
          clock.now += MANIFEST_REVALIDATE_MS;
          expect((await visit(b, x.slug)).status).toBe(451);
        } finally {
          await early.end();
          await late.end();
        }
      });
  });
}

suite("on PGlite", false, async () => {
  const t = await makeTestContext();
  // A second instance's caches over the same database: the serve caches are per context.
  const b: AppContext = { ...t.ctx };
  return { a: t.ctx, b, clock: t.clock, close: () => t.close() };
});

suite("on a PostgreSQL server", true, async () => {
  const server = await startPgServer();
  const t = await makeTestContext({ DATABASE_URL: server.url });
  const b = await createContext(t.ctx.env, { now: () => t.clock.now });
  return {
    a: t.ctx,
    b,
    clock: t.clock,
    url: server.url,
    async close() {
      await b.dbHandle.close();
      await t.close();
      await server.stop();
    },
  };
});
