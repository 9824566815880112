import { and, asc, eq, gte, inArray, lt, lte, sql } from "drizzle-orm";
import type { Db } from "./client";
import { dropStats, dropStatsVisitors, statsSalts, type DropStatsRow } from "./schema";

// The counts' rows (lib/stats): one row per drop and UTC day, the distinct visitor hashes of the
// days still open, and each open day's salt. Days are 'YYYY-MM-DD' strings (UTC).

/** The most keys each map of a day row keeps (paths, referrers, countries): the most viewed. */
export const STATS_KEYS_KEPT = 100;

/** What one process adds to one drop's day. */
export interface DayDelta {
  dropId: string;
  day: string;
  views: number;
  requests: number;
  bytes: number;
  notFound: number;
  botRequests: number;
  previews: number;
  paths: Record<string, number>;
  referrers: Record<string, number>;
  countries: Record<string, number>;
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
          deltas.slice(i, i + 500).map((d) => ({
            dropId: d.dropId,
            day: d.day,
            views: d.views,
            visitors: visitors.get(`${d.dropId}/${d.day}`) ?? 0,
            requests: d.requests,
            bytes: d.bytes,
            notFound: d.notFound,
            botRequests: d.botRequests,
            previews: d.previews,
            paths: d.paths,
            referrers: d.referrers,
            countries: d.countries,
          })),
        )
        .onConflictDoUpdate({
          target: [dropStats.dropId, dropStats.day],
          set: {
            views: sql`${dropStats.views} + excluded.views`,
            visitors: sql`${dropStats.visitors} + excluded.visitors`,
            requests: sql`${dropStats.requests} + excluded.requests`,
            bytes: sql`${dropStats.bytes} + excluded.bytes`,
            notFound: sql`${dropStats.notFound} + excluded.not_found`,
            botRequests: sql`${dropStats.botRequests} + excluded.bot_requests`,
            previews: sql`${dropStats.previews} + excluded.previews`,
            paths: mergedMap("paths"),
            referrers: mergedMap("referrers"),
            countries: mergedMap("countries"),
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
