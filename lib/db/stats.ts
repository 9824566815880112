import { and, asc, eq, gte, inArray, lt, lte, sql } from "drizzle-orm";
import type { Db } from "./client";
import { dropStats, dropStatsVisitors, statsSalts, type DropStatsRow } from "./schema";

// The counts' rows (lib/stats): one row per drop and UTC day, the distinct visitor hashes of the
// days still open, and each open day's salt. Days are 'YYYY-MM-DD' strings (UTC).

/** The most keys each map of a day row keeps (paths, referrers, countries): the most viewed. */
export const STATS_KEYS_KEPT = 100;

/** The counters of a drop's day: columns of drop_stats, and fields of a process's tally (lib/stats). */
export const DAY_COUNTERS = ["views", "requests", "bytes", "notFound", "botRequests", "previews"] as const;
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
 * Adds one process's counts to drops' days, in one transaction for the whole flush (a long tail's
 * thousands of drops cost one transaction per flush, not one each): the new visitor hashes (a hash
 * another process or an earlier flush already stored counts once), then one upsert of every day
 * row. Each (drop, day) appears at most once in `deltas`.
 */
export async function addDayCounts(db: Db, deltas: DayDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  await db.transaction(async (tx) => {
    const hashes = deltas.flatMap((d) => d.hashes.map((hash) => ({ dropId: d.dropId, day: d.day, hash })));
    const visitors = new Map<string, number>();
    for (let i = 0; i < hashes.length; i += 1000) {
      const inserted = await tx
        .insert(dropStatsVisitors)
        .values(hashes.slice(i, i + 1000))
        .onConflictDoNothing()
        .returning({ dropId: dropStatsVisitors.dropId, day: dropStatsVisitors.day });
      for (const r of inserted) visitors.set(`${r.dropId}/${r.day}`, (visitors.get(`${r.dropId}/${r.day}`) ?? 0) + 1);
    }
    for (let i = 0; i < deltas.length; i += 500)
      await tx
        .insert(dropStats)
        .values(
          deltas.slice(i, i + 500).map(({ hashes: _hashes, ...counts }) => ({
            ...counts,
            visitors: visitors.get(`${counts.dropId}/${counts.day}`) ?? 0,
          })),
        )
        .onConflictDoUpdate({
          target: [dropStats.dropId, dropStats.day],
          set: {
            visitors: sql`${dropStats.visitors} + excluded.visitors`,
            ...Object.fromEntries(
              DAY_COUNTERS.map((f) => [f, sql`${dropStats[f]} + ${sql.raw(`excluded.${dropStats[f].name}`)}`]),
            ),
            ...Object.fromEntries(DAY_MAPS.map((f) => [f, mergedMap(dropStats[f].name)])),
          },
        });
  });
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
