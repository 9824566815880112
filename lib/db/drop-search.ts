import { and, asc, desc, eq, getTableColumns, gt, gte, isNotNull, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { drops, dropStats, type DropRow } from "./schema";

// The dashboard's drops list: one account's drops, searched, filtered by state and sorted, a page
// at a time. Every order has an index that starts with owner_id (lib/db/schema/drops.ts), so a page is
// read in index order and the search and state filters only look at the account's own rows.
// By views (a moving 7-day window, so no index can hold the order) each of the account's matching
// drops sums its days from drop_stats' primary key (drop_id, day) and the page is a top-N sort.

export type DropSort = "updated" | "created" | "name" | "views";
export type DropStateFilter = "all" | "live" | "expired" | "protected" | "disabled";

export interface DropSearch {
  /** Matched anywhere in the drop's name or slug, case-insensitively; "" matches every drop. */
  term: string;
  state: DropStateFilter;
  sort: DropSort;
  limit: number;
  offset: number;
  now: Date;
  /** The first day ('YYYY-MM-DD', UTC) the views sort counts. */
  viewsSince: string;
}

export type SearchedDropRow = Omit<DropRow, "siteRules" | "accessPasswordHash" | "claimTokenHash"> & {
  /** The drop's views from `viewsSince` on; only read by the views sort (null otherwise). */
  views: number | null;
};

/** A LIKE pattern matching `term` anywhere: its own %, _ and \ are matched literally. */
function containing(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const label = sql`coalesce(${drops.name}, ${drops.slug})`;

function orderOf(sort: DropSort): SQL[] {
  // Most viewed first; equal counts (most often 0) by last update, as the default order.
  if (sort === "views") return [sql`views_7d desc`, desc(drops.updatedAt), desc(drops.id)];
  if (sort === "name") return [asc(label), asc(drops.id)];
  if (sort === "created") return [desc(drops.createdAt), desc(drops.id)];
  return [desc(drops.updatedAt), desc(drops.id)];
}

export async function searchOwnedDrops(
  db: Db,
  ownerId: string,
  q: DropSearch,
): Promise<{ total: number; rows: SearchedDropRow[] }> {
  const where = [eq(drops.ownerId, ownerId)];
  if (q.term) {
    const pattern = containing(q.term.toLowerCase());
    where.push(or(sql`lower(${drops.name}) like ${pattern}`, sql`${drops.slug} like ${pattern}`)!);
  }
  if (q.state === "live")
    where.push(and(or(isNull(drops.expiresAt), gt(drops.expiresAt, q.now)), isNull(drops.disabledAt))!);
  if (q.state === "expired") where.push(lte(drops.expiresAt, q.now));
  if (q.state === "protected") where.push(eq(drops.accessMode, "password"));
  if (q.state === "disabled") where.push(isNotNull(drops.disabledAt));
  const filter = and(...where);
  const { siteRules: _rules, accessPasswordHash: _hash, claimTokenHash: _claim, ...listed } = getTableColumns(drops);
  const page =
    q.sort === "views"
      ? // Each matching drop with its days from viewsSince on (drop_stats' primary key is (drop_id, day)).
        db
          .select({ ...listed, views: sql<string | null>`coalesce(sum(${dropStats.views}), 0)`.as("views_7d") })
          .from(drops)
          .leftJoin(dropStats, and(eq(dropStats.dropId, drops.id), gte(dropStats.day, q.viewsSince)))
          .where(filter)
          .groupBy(drops.id)
      : db
          .select({ ...listed, views: sql<string | null>`null` })
          .from(drops)
          .where(filter);
  const [rows, [count]] = await Promise.all([
    page
      .orderBy(...orderOf(q.sort))
      .limit(q.limit)
      .offset(q.offset),
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(drops)
      .where(filter),
  ]);
  return {
    total: count?.n ?? 0,
    rows: rows.map((r) => ({ ...r, views: r.views === null ? null : Number(r.views) })),
  };
}
