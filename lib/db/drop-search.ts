import { and, asc, desc, eq, getTableColumns, gt, isNotNull, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { drops, type DropRow } from "./schema";

// The dashboard's drops list: one account's drops, searched, filtered by state and sorted, a page
// at a time. Every order has an index that starts with owner_id (lib/db/schema/drops.ts), so a page is
// read in index order and the search and state filters only look at the account's own rows.

export type DropSort = "updated" | "created" | "name";
export type DropStateFilter = "all" | "live" | "expired" | "protected" | "disabled";

export interface DropSearch {
  /** Matched anywhere in the drop's name or slug, case-insensitively; "" matches every drop. */
  term: string;
  state: DropStateFilter;
  sort: DropSort;
  limit: number;
  offset: number;
  now: Date;
}

export type SearchedDropRow = Omit<DropRow, "siteRules" | "accessPasswordHash" | "claimTokenHash">;

/** A LIKE pattern matching `term` anywhere: its own %, _ and \ are matched literally. */
function containing(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const label = sql`coalesce(${drops.name}, ${drops.slug})`;

function orderOf(sort: DropSort): SQL[] {
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
  const [rows, [count]] = await Promise.all([
    db
      .select(listed)
      .from(drops)
      .where(filter)
      .orderBy(...orderOf(q.sort))
      .limit(q.limit)
      .offset(q.offset),
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(drops)
      .where(filter),
  ]);
  return { total: count?.n ?? 0, rows };
}
