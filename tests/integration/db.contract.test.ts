import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { eq, inArray, is, sql } from "drizzle-orm";
import { getTableConfig, PgTable } from "drizzle-orm/pg-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isNeonUrl, openDb, type Db, type DbHandle, type DbOptions } from "@/lib/db/client";
import * as schema from "@/lib/db/schema";
import { accounts, contents, drops, dropStats, files } from "@/lib/db/schema";
import { markContentsStored, pinContents } from "@/lib/db/contents";
import { addDayCounts, type DayDelta } from "@/lib/db/stats";
import { insertDropWithFiles, replaceDropFiles } from "@/lib/db/queries";
import { readChanges } from "@/lib/db/serving";
import { startNeonWsProxy, type NeonWsProxy } from "../support/neon-ws-proxy";
import { startPgServer, type PgServer } from "../support/pg-server";

// The database contract, run on every store openDb can choose: PGlite in a temp dir, a real
// PostgreSQL 15 server through node-postgres, and the same server through the production Neon
// driver (@neondatabase/serverless over WebSocket, via a local ws→tcp proxy).

const migrationsFolder = path.resolve(import.meta.dirname, "../../drizzle");
const journalEntries = (
  JSON.parse(readFileSync(path.join(migrationsFolder, "meta/_journal.json"), "utf8")) as { entries: unknown[] }
).entries.length;
/** Tables and index names the schema module declares: what migrating must produce. */
const schemaTables = (Object.values(schema) as unknown[])
  .filter((v): v is PgTable => is(v, PgTable))
  .map((t) => {
    const config = getTableConfig(t);
    return {
      name: config.name,
      indexes: config.indexes.map((i) => i.config.name).filter((n): n is string => Boolean(n)),
    };
  });

let pgServer: PgServer;
let proxy: NeonWsProxy;
const tempDirs: string[] = [];

beforeAll(async () => {
  [pgServer, proxy] = await Promise.all([startPgServer({ database: "dropsite_pg" }), startNeonWsProxy()]);
});

afterAll(async () => {
  await proxy?.close();
  await pgServer?.stop();
  await Promise.all(tempDirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(path.join(tmpdir(), "dropsite-db-"));
  tempDirs.push(d);
  return d;
}

const implementations: Array<{ name: string; kind: DbHandle["kind"]; options: () => Promise<DbOptions> }> = [
  { name: "PGlite", kind: "pglite", options: async () => ({ dataDir: await tempDir(), migrationsFolder }) },
  {
    name: "PostgreSQL via node-postgres",
    kind: "postgres",
    options: async () => ({ databaseUrl: pgServer.url, dataDir: await tempDir(), migrationsFolder }),
  },
  {
    name: "PostgreSQL via the Neon WebSocket driver",
    kind: "neon",
    options: async () => {
      const url = new URL(await pgServer.createDatabase("dropsite_neon"));
      url.searchParams.set("driver", "neon");
      return { databaseUrl: url.toString(), dataDir: await tempDir(), migrationsFolder, neonWsProxy: proxy.wsProxy };
    },
  },
];

/** Rows of a raw `db.execute` (every driver here answers {rows}). */
async function query<T>(db: Db, q: ReturnType<typeof sql>): Promise<T[]> {
  return ((await db.execute(q)) as { rows: T[] }).rows;
}

/** The SQLSTATE of a failed query, wherever the driver or drizzle put it. */
function sqlState(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

async function expectSqlState(p: Promise<unknown>, state: string): Promise<void> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  expect(caught, `expected the query to fail with SQLSTATE ${state}`).toBeDefined();
  expect(sqlState(caught)).toBe(state);
}

const id = (p: string) => `${p}_${randomBytes(8).toString("hex")}`;

async function newAccount(db: Db, extra: Partial<typeof accounts.$inferInsert> = {}) {
  const [row] = await db
    .insert(accounts)
    .values({ id: id("acct"), issuer: "https://issuer.test", subject: id("sub"), email: "a@example.test", ...extra })
    .returning();
  return row as typeof accounts.$inferSelect;
}

async function newDrop(db: Db, values: Partial<typeof drops.$inferInsert> = {}) {
  const [row] = await db
    .insert(drops)
    .values({ id: id("drop"), slug: id("slug").replace(/_/g, "-"), ...values })
    .returning();
  return row as typeof drops.$inferSelect;
}

describe.each(implementations)("database contract: $name", ({ kind, options }) => {
  let opts: DbOptions;
  let handle: DbHandle;
  let db: Db;

  beforeAll(async () => {
    opts = await options();
    handle = await openDb(opts);
    db = handle.db;
  });

  afterAll(async () => {
    await handle?.close();
  });

  it("opens the driver configuration chose", () => {
    expect(handle.kind).toBe(kind);
    if (opts.databaseUrl) expect(isNeonUrl(opts.databaseUrl)).toBe(kind === "neon");
  });

  it("the change feed: triggers write a row per drop, domain and account change; a read from the last xmin returns each once it commits", async () => {
    const base = await readChanges(db, null);
    expect(base.changes).toEqual([]);
    const owner = await newAccount(db);
    const drop = await newDrop(db, { ownerId: owner.id });
    await db.update(drops).set({ liveVersion: 2 }).where(eq(drops.id, drop.id));
    await db.update(drops).set({ liveVersion: 2 }).where(eq(drops.id, drop.id)); // no change: no row
    await db
      .update(accounts)
      .set({ vanitySub: id("sub").slice(0, 20).replace(/_/g, "-") })
      .where(eq(accounts.id, owner.id));
    await db.delete(drops).where(eq(drops.id, drop.id));
    const read = await readChanges(db, base.xmin);
    const mine = read.changes.filter((c) => c.dropId === drop.id || c.ref === owner.id);
    expect(mine.map((c) => [c.kind, c.slug])).toEqual([
      ["drop", drop.slug],
      ["drop", drop.slug],
      ["account", null],
      ["drop", drop.slug],
    ]);
    expect(BigInt(read.xmin)).toBeGreaterThan(BigInt(base.xmin));
    const again = await readChanges(db, read.xmin);
    expect(again.changes.filter((c) => c.dropId === drop.id || c.ref === owner.id)).toEqual([]);
  });

  it("inserts file rows as column arrays: any path, null scope and large sizes come back exactly", async () => {
    const drop = await newDrop(db);
    const paths = [
      'a "quoted" name.html',
      "back\\slash\\x.txt",
      "comma,brace{}.css",
      "NULL",
      "",
      "sp ace/ünï cödé/日本.txt",
      "emoji/🚀.svg",
      "tab\there",
      "{a,b}",
    ];
    const rows = paths.map((p, i) => ({
      dropId: drop.id,
      path: p || "empty-name",
      size: i === 0 ? 2 ** 40 : i,
      sha256: "ab".repeat(32),
      contentType: "text/plain; charset=utf-8",
      storageRef: `c/s/${i}`,
      batch: "c",
      scope: i % 2 ? null : "a-scope",
    }));
    await insertDropWithFiles(db, { id: id("drop2"), slug: id("slug").replace(/_/g, "-") }, []);
    const replaced = await replaceDropFiles(db, drop.id, rows, {
      updatedAt: new Date(),
      expiresAt: null,
      purgeAt: null,
      siteRules: null,
    });
    expect(replaced.ok && replaced.drop.fileCount).toBe(rows.length);
    const back = await db.select().from(files).where(eq(files.dropId, drop.id));
    const byPath = <T extends { path: string }>(xs: T[]) => [...xs].sort((a, b) => (a.path < b.path ? -1 : 1));
    expect(byPath(back)).toEqual(byPath(rows.map((r) => ({ ...r, version: 1 }))));
  });

  it("pins and records contents as column arrays: sizes as numbers, pins counted, holds kept at the later time", async () => {
    const scope = id("scope");
    const keys = [
      { sha256: "0".repeat(64), size: 2 ** 40 },
      { sha256: "1".repeat(64), size: 0 },
    ];
    const [t1, t2, t3] = [
      new Date("2026-01-01T00:00:00Z"),
      new Date("2026-01-02T00:00:00Z"),
      new Date("2026-01-03T00:00:00Z"),
    ];
    expect(await pinContents(db, scope, keys, t1, t3)).toEqual(keys.map((k) => ({ ...k, storageRef: null })));
    await markContentsStored(db, scope, [{ sha256: keys[0]!.sha256, storageRef: "c/x/0", size: keys[0]!.size }]);
    const again = await pinContents(db, scope, keys, t2, t2);
    expect(again.sort((a, b) => (a.sha256 < b.sha256 ? -1 : 1))).toEqual([
      { ...keys[0]!, storageRef: "c/x/0" },
      { ...keys[1]!, storageRef: null },
    ]);
    const rows = await db.select().from(contents).where(eq(contents.scope, scope));
    expect(rows.map((r) => [r.pins, r.pinnedAt?.toISOString(), r.holdUntil?.toISOString()])).toEqual([
      [2, t2.toISOString(), t3.toISOString()],
      [2, t2.toISOString(), t3.toISOString()],
    ]);
  });

  it("adds day counts as column arrays: counters summed, only new visitors counted, maps merged to the largest keys", async () => {
    const [a, b] = [await newDrop(db), await newDrop(db)];
    const day = "2026-11-01";
    const odd = { 'a "quoted" path': 2, "back\\slash": 1, "comma,brace{}": 3, "日本/🚀": 4, NULL: 1, "": 1 };
    const delta = (dropId: string, extra: Partial<DayDelta> = {}): DayDelta => ({
      dropId,
      day,
      views: 2,
      previewViews: 1,
      requests: 1,
      bytes: 2 ** 40,
      notFound: 0,
      botRequests: 1,
      previews: 0,
      paths: odd,
      referrers: {},
      countries: { NL: 2 },
      hashes: ["h1", "h2"],
      ...extra,
    });
    await addDayCounts(db, [delta(b.id), delta(a.id)]);
    const many = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`k${String(i).padStart(3, "0")}`, i]));
    await addDayCounts(db, [
      delta(a.id, { views: 3, previewViews: 2, hashes: ["h2", "h3"], paths: { "back\\slash": 5 }, countries: {} }),
      delta(a.id, { day: "2026-11-02", hashes: [] }),
      delta(b.id, { views: 0, hashes: ["h1"], paths: many }),
    ]);
    const rows = await db
      .select()
      .from(dropStats)
      .where(inArray(dropStats.dropId, [a.id, b.id]));
    const of = (dropId: string, d: string) => rows.find((r) => r.dropId === dropId && r.day === d);
    expect(rows).toHaveLength(3);
    expect(of(a.id, day)).toMatchObject({
      views: 5,
      previewViews: 3,
      visitors: 3,
      requests: 2,
      bytes: 2 ** 41,
      botRequests: 2,
      paths: { ...odd, "back\\slash": 6 },
      countries: { NL: 2 },
    });
    expect(of(a.id, "2026-11-02")).toMatchObject({ views: 2, visitors: 0, paths: odd });
    const bRow = of(b.id, day)!;
    expect(bRow).toMatchObject({ views: 2, visitors: 2 });
    // The merged map keeps STATS_KEYS_KEPT keys, the most counted.
    expect(Object.keys(bRow.paths).sort()).toEqual(Object.keys(many).slice(50));
  });

  it("applies the migrations: every table and index of the schema exists, the partial unique index with its WHERE", async () => {
    const tables = await query<{ table_name: string }>(
      db,
      sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
    );
    expect(tables.map((r) => r.table_name)).toEqual(schemaTables.map((t) => t.name).sort());
    const idx = await query<{ indexname: string; indexdef: string }>(
      db,
      sql`select indexname, indexdef from pg_indexes where schemaname = 'public'`,
    );
    const byName = new Map(idx.map((r) => [r.indexname, r.indexdef]));
    for (const t of schemaTables)
      for (const name of t.indexes) expect(byName.has(name), `index ${name} of ${t.name}`).toBe(true);
    expect(byName.get("drops_slug_idx")).toMatch(/UNIQUE/);
    expect(byName.get("drops_owner_name_idx")).toMatch(/UNIQUE.*\(owner_id, name\) WHERE \(name IS NOT NULL\)/);
    const applied = await query<{ n: number }>(db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    expect(applied[0]?.n).toBe(journalEntries);
  });

  it("inserts and selects accounts, drops and files with their defaults and types", async () => {
    const account = await newAccount(db);
    expect(account.plan).toBe("free");
    expect(account.createdAt).toBeInstanceOf(Date);
    const expiresAt = new Date("2031-02-03T04:05:06.789Z");
    const drop = await newDrop(db, {
      ownerId: account.id,
      name: "site",
      fileCount: 2,
      totalBytes: 6_000_000_000,
      expiresAt,
    });
    await db.insert(files).values([
      {
        dropId: drop.id,
        path: "index.html",
        size: 12,
        sha256: "a".repeat(64),
        contentType: "text/html; charset=utf-8",
        storageRef: `${drop.id}/b1/index.html`,
        batch: "b1",
      },
      {
        dropId: drop.id,
        path: "img/ünï cødé.png",
        size: 5_999_999_988,
        sha256: "b".repeat(64),
        contentType: "image/png",
        storageRef: `${drop.id}/b1/img/x.png`,
        batch: "b1",
      },
    ]);

    const [read] = await db.select().from(drops).where(eq(drops.slug, drop.slug));
    expect(read).toMatchObject({
      id: drop.id,
      ownerId: account.id,
      name: "site",
      fileCount: 2,
      totalBytes: 6_000_000_000,
      redeployCount: 0,
      claimTokenHash: null,
      purgeAt: null,
    });
    expect(read?.expiresAt?.toISOString()).toBe(expiresAt.toISOString());
    const rows = await db.select().from(files).where(eq(files.dropId, drop.id)).orderBy(files.path);
    expect(rows.map((r) => [r.path, r.size])).toEqual([
      ["img/ünï cødé.png", 5_999_999_988],
      ["index.html", 12],
    ]);
  });

  it("refuses a second drop with the same slug", async () => {
    const first = await newDrop(db);
    await expectSqlState(newDrop(db, { slug: first.slug }), "23505");
  });

  it("lets exactly one of two concurrent inserts of one slug win", async () => {
    const slug = id("race").replace(/_/g, "-");
    const results = await Promise.allSettled([newDrop(db, { slug }), newDrop(db, { slug })]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const rejected = results.find((r) => r.status === "rejected");
    expect(sqlState(rejected?.status === "rejected" ? rejected.reason : undefined)).toBe("23505");
  });

  it("refuses a second account with the same issuer and subject", async () => {
    const a = await newAccount(db);
    await expectSqlState(newAccount(db, { subject: a.subject }), "23505");
  });

  it("holds the partial unique index on (owner_id, name): names unique per owner, unnamed drops free", async () => {
    const owner = await newAccount(db);
    const other = await newAccount(db);
    await newDrop(db, { ownerId: owner.id, name: "blog" });
    await expectSqlState(newDrop(db, { ownerId: owner.id, name: "blog" }), "23505");
    await newDrop(db, { ownerId: other.id, name: "blog" });
    await newDrop(db, { ownerId: owner.id, name: null });
    await newDrop(db, { ownerId: owner.id, name: null });
    const owned = await db.select().from(drops).where(eq(drops.ownerId, owner.id));
    expect(owned.map((d) => d.name).sort()).toEqual(["blog", null, null]);
  });

  it("rolls back an interactive transaction whose callback throws", async () => {
    const accountId = id("acct");
    const slug = id("tx").replace(/_/g, "-");
    await expect(
      db.transaction(async (tx) => {
        await tx.insert(accounts).values({ id: accountId, issuer: "https://issuer.test", subject: id("sub") });
        await tx.insert(drops).values({ id: id("drop"), slug, ownerId: accountId });
        // Reads inside see the transaction's own writes.
        const seen = await tx.select().from(drops).where(eq(drops.slug, slug));
        expect(seen).toHaveLength(1);
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await db.select().from(accounts).where(eq(accounts.id, accountId))).toEqual([]);
    expect(await db.select().from(drops).where(eq(drops.slug, slug))).toEqual([]);
  });

  it("rolls back the earlier writes of a transaction when a later statement violates a constraint", async () => {
    const taken = await newDrop(db);
    const accountId = id("acct");
    let caught: unknown;
    try {
      await db.transaction(async (tx) => {
        await tx.insert(accounts).values({ id: accountId, issuer: "https://issuer.test", subject: id("sub") });
        await tx.insert(drops).values({ id: id("drop"), slug: taken.slug, ownerId: accountId });
      });
    } catch (err) {
      caught = err;
    }
    expect(sqlState(caught)).toBe("23505");
    expect(await db.select().from(accounts).where(eq(accounts.id, accountId))).toEqual([]);
  });

  it("commits a transaction that returns, and the connection stays usable after a rollback", async () => {
    const slug = id("ok").replace(/_/g, "-");
    const result = await db.transaction(async (tx) => {
      await tx.insert(drops).values({ id: id("drop"), slug });
      return "done";
    });
    expect(result).toBe("done");
    expect(await db.select({ slug: drops.slug }).from(drops).where(eq(drops.slug, slug))).toEqual([{ slug }]);
  });

  it("cascades an account's deletion to its drops and their files", async () => {
    const owner = await newAccount(db);
    const drop = await newDrop(db, { ownerId: owner.id });
    await db.insert(files).values({
      dropId: drop.id,
      path: "a.txt",
      size: 1,
      sha256: "c".repeat(64),
      contentType: "text/plain",
      storageRef: "r",
      batch: "b1",
    });
    await db.delete(accounts).where(eq(accounts.id, owner.id));
    expect(await db.select().from(drops).where(eq(drops.id, drop.id))).toEqual([]);
    expect(await db.select().from(files).where(eq(files.dropId, drop.id))).toEqual([]);
  });

  it("reopens on the same store: migrations are not applied twice and data persists", async () => {
    const marker = await newDrop(db, { name: null });
    await handle.close();
    handle = await openDb(opts);
    db = handle.db;
    const applied = await query<{ n: number }>(db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    expect(applied[0]?.n).toBe(journalEntries);
    expect(await db.select({ id: drops.id }).from(drops).where(eq(drops.id, marker.id))).toEqual([{ id: marker.id }]);
  });
});

describe("Neon driver path", () => {
  // Self-contained: it opens its own Neon-driver handle, so it holds in any test order.
  it("went through the WebSocket proxy", async () => {
    const before = proxy.connections;
    const url = new URL(await pgServer.createDatabase("dropsite_neon_proxy"));
    url.searchParams.set("driver", "neon");
    const h = await openDb({
      databaseUrl: url.toString(),
      dataDir: await tempDir(),
      migrationsFolder,
      neonWsProxy: proxy.wsProxy,
    });
    try {
      expect(h.kind).toBe("neon");
      await query(h.db, sql`select 1`);
      expect(proxy.connections).toBeGreaterThan(before);
    } finally {
      await h.close();
    }
  });
});
