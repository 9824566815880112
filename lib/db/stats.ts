import { and, asc, eq, gte, inArray, lt, lte, sql } from "drizzle-orm";
import { sqlArray } from "./arrays";
import type { Db } from "./client";
import { dropStats, dropStatsVisitors, statsSalts, type DropStatsRow } from "./schema";

// The counts' rows (lib/stats): one row per drop and UTC day, the distinct visitor hashes of the
// days still open, and each open day's salt. Days are 'YYYY-MM-DD' strings (UTC).

/** The most keys each map of a day row keeps (paths, referrers, countries): the most viewed. */
export const STATS_KEYS_KEPT = 100;

/** The counters of a drop's day: columns of drop_stats, and fields of a process's tally (lib/stats). */
export const DAY_COUNTERS = [
  "views",
  "previewViews",
  "requests",
  "bytes",
  "notFound",
  "botRequests",
  "previews",
] as const;
/** The count maps of a drop's day (jsonb objects of numbers), each kept to STATS_KEYS_KEPT keys. */
export const DAY_MAPS = ["paths", "referrers", "countries"] as const;
/** The counters of a day, by name. */
export type DayCounters = Record<(typeof DAY_COUNTERS)[number], number>;

/** What one process adds to one drop's day. */
export interface DayDelta extends DayCounters, Record<(typeof DAY_MAPS)[number], Record<string, number>> {
  dropId: string;
  day: string;
  /** Visitor hashes seen (SHA-256 hex, salted); only the ones new to the day add to `visitors`. */
  hashes: string[];
}

/** Adds two count maps and keeps the STATS_KEYS_KEPT largest, in SQL (both jsonb objects of numbers). */
function mergedMap(column: string) {
  return sql.raw(
    `(select coalesce(jsonb_object_agg(k, v), '{}'::jsonb) from (` +
      `select k, sum(v)::bigint as v from (` +
      `select key as k, value::text::bigint as v from jsonb_each(drop_stats.${column}) ` +
      `union all select key, value::text::bigint from jsonb_each(excluded.${column})` +
      `) e group by k order by sum(v) desc, k limit ${STATS_KEYS_KEPT}) m)`,
  );
}

/**
 * Adds one process's counts to drops' days in one statement for the whole flush (a long tail's
 * thousands of drops cost one statement per flush, not one each): the new visitor hashes (a hash
 * another process or an earlier flush already stored counts once), then one upsert of every day
 * row, each adding what is new. Every column goes as one array parameter (./arrays): a VALUES
 * list of 5,000 drops' rows took drizzle 0.6 s of the main thread to build, in 15–20 ms slices,
 * every 10 s (docs/benchmarks.md). Rows are written in (drop, day) order, so two processes
 * flushing the same drops take their row locks in the same order. Each (drop, day) appears at
 * most once in `deltas`.
 */
export async function addDayCounts(db: Db, deltas: DayDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  const rows = [...deltas].sort((a, b) => compare(a.dropId, b.dropId) || compare(a.day, b.day));
  const seen = rows.flatMap((d) => d.hashes.map((hash) => ({ dropId: d.dropId, day: d.day, hash })));
  const counters = DAY_COUNTERS.map((f) => sql.raw(dropStats[f].name));
  const maps = DAY_MAPS.map((f) => sql.raw(dropStats[f].name));
  const columns = sql.join([...counters, ...maps], sql`, `);
  const arrays = sql.join(
    [
      sqlArray(
        rows.map((d) => d.dropId),
        "text",
      ),
      sqlArray(
        rows.map((d) => d.day),
        "date",
      ),
      ...DAY_COUNTERS.map((f) =>
        sqlArray(
          rows.map((d) => d[f]),
          "bigint",
        ),
      ),
      ...DAY_MAPS.map((f) =>
        sqlArray(
          rows.map((d) => JSON.stringify(d[f])),
          "jsonb",
        ),
      ),
    ],
    sql`, `,
  );
  const added = sql.join(
    [
      sql`visitors = ${dropStats.visitors} + excluded.visitors`,
      ...DAY_COUNTERS.map((f) =>
        sql.raw(`${dropStats[f].name} = drop_stats.${dropStats[f].name} + excluded.${dropStats[f].name}`),
      ),
      ...DAY_MAPS.map((f) => sql`${sql.raw(dropStats[f].name)} = ${mergedMap(dropStats[f].name)}`),
    ],
    sql`, `,
  );
  await db.execute(sql`
    with seen as (
      insert into ${dropStatsVisitors} (drop_id, day, hash)
      select * from unnest(${sqlArray(
        seen.map((s) => s.dropId),
        "text",
      )}, ${sqlArray(
        seen.map((s) => s.day),
        "date",
      )}, ${sqlArray(
        seen.map((s) => s.hash),
        "text",
      )}) as v(drop_id, day, hash)
      order by 1, 2, 3
      on conflict do nothing
      returning drop_id, day
    ), fresh as (select drop_id, day, count(*) as n from seen group by drop_id, day)
    insert into ${dropStats} (drop_id, day, visitors, ${columns})
    select u.drop_id, u.day, coalesce(fresh.n, 0), ${sql.join(
      [...counters, ...maps].map((c) => sql`u.${c}`),
      sql`, `,
    )}
    from unnest(${arrays}) as u(drop_id, day, ${columns})
    left join fresh on fresh.drop_id = u.drop_id and fresh.day = u.day
    order by u.drop_id, u.day
    on conflict (drop_id, day) do update set ${added}`);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The salt of a day: the one stored, or a new random one stored first (every process gets the same). */
export async function daySalt(db: Db, day: string, fresh: string): Promise<string> {
  await db.insert(statsSalts).values({ day, salt: fresh }).onConflictDoNothing();
  const [row] = await db.select({ salt: statsSalts.salt }).from(statsSalts).where(eq(statsSalts.day, day));
  return row?.salt ?? fresh;
}

/** Forgets the visitor hashes and salts of the days before `day` (their counts are final). */
export async function closeDaysBefore(db: Db, day: string): Promise<void> {
  await db.delete(dropStatsVisitors).where(lt(dropStatsVisitors.day, day));
  await db.delete(statsSalts).where(lt(statsSalts.day, day));
}

/** Deletes day rows before `day` (past the longest retention). */
export async function deleteStatsBefore(db: Db, day: string): Promise<void> {
  await db.delete(dropStats).where(lt(dropStats.day, day));
}

/** A drop's day rows from `from` to `to` (inclusive), oldest first. */
export function dayRows(db: Db, dropId: string, from: string, to: string): Promise<DropStatsRow[]> {
  return db
    .select()
    .from(dropStats)
    .where(and(eq(dropStats.dropId, dropId), gte(dropStats.day, from), lte(dropStats.day, to)))
    .orderBy(asc(dropStats.day));
}

/** Views of each of these drops from `from` on. */
export async function viewsSince(db: Db, dropIds: string[], from: string): Promise<Map<string, number>> {
  if (dropIds.length === 0) return new Map();
  const rows = await db
    .select({ dropId: dropStats.dropId, views: sql<string>`sum(${dropStats.views})` })
    .from(dropStats)
    .where(and(inArray(dropStats.dropId, dropIds), gte(dropStats.day, from)))
    .groupBy(dropStats.dropId);
  return new Map(rows.map((r) => [r.dropId, Number(r.views)]));
}
