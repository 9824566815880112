import { and, eq, gt, isNotNull, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import { sqlArray } from "./arrays";
import type { Db } from "./client";
import { contents, files, uploadGrants, type ContentRow } from "./schema";

// Content rows: the bytes of one SHA-256 within one scope. Taking a pin is an upsert, which
// locks the row, and a purge locks the rows it removes (FOR UPDATE) and re-checks references,
// pins and holds under that lock, so a pin either waits for a purge to finish (and then stores
// the bytes anew) or makes the purge leave the row alone.

/** A pin older than this belongs to a request that died; a purge no longer honours it. */
export const STALE_PIN_MS = 60 * 60 * 1000;

export interface ContentKey {
  sha256: string;
  size: number;
}

export type PinnedContent = Pick<ContentRow, "sha256" | "size" | "storageRef">;

/**
 * The rows of `shas` in a scope, locked in hash order (a subquery for `(scope, sha256) in (…)`).
 * Every statement that writes several content rows takes their locks in this one order (the
 * pin upsert inserts in it), so requests writing overlapping sets queue instead of deadlocking:
 * found, parallel appends sharing contents in different orders answered 503 on a deadlock.
 */
function lockedInHashOrder(scope: string, shas: string[]): SQL {
  return sql`select c.scope, c.sha256 from ${contents} c where c.scope = ${scope} and c.sha256 = any(${sqlArray([...new Set(shas)].sort(), "text")}) order by c.sha256 for update`;
}

/** Rows of a raw `db.execute` (every driver here answers {rows}). */
async function rowsOf<T>(db: Db, q: SQL): Promise<T[]> {
  return ((await db.execute(q)) as { rows: T[] }).rows;
}

/**
 * Pins contents of a scope (creating absent rows without bytes) and returns their rows, in one
 * statement whatever their number (the keys go as two arrays, see ./arrays).
 *
 * A content is its hash and its size. A size that no bytes ever matched (a row without bytes)
 * binds nobody: a pin with another size replaces it, and its hold starts over from this pin's
 * instead of being pushed further. A row with stored bytes keeps its size, which those bytes
 * were verified to have, and its hold, unless `verified` says the caller holds bytes of this
 * hash whose size it counted itself: then the row takes that size and drops its ref, so the
 * caller stores the bytes anew. A caller without verified bytes compares the returned size with
 * the one it declared.
 */
export async function pinContents(
  db: Db,
  scope: string,
  keys: ContentKey[],
  now: Date,
  holdUntil?: Date,
  verified = false,
): Promise<PinnedContent[]> {
  if (keys.length === 0) return [];
  const ordered = [...keys].sort((a, b) => (a.sha256 < b.sha256 ? -1 : a.sha256 > b.sha256 ? 1 : 0));
  const hold = holdUntil ? sql`${holdUntil.toISOString()}::timestamptz` : sql`null::timestamptz`;
  // In SET, every column of contents names the row as it was before this statement.
  const sameSize = sql`${contents}.size = excluded.size`;
  const resizable = verified ? sql`true` : sql`${contents}.storage_ref is null`;
  const rows = await rowsOf<{ sha256: string; size: number | string | bigint; storage_ref: string | null }>(
    db,
    sql`insert into ${contents} (scope, sha256, size, pins, pinned_at, hold_until)
        select ${scope}, u.sha256, u.size, 1, ${now.toISOString()}::timestamptz, ${hold}
        from unnest(${sqlArray(
          ordered.map((k) => k.sha256),
          "text",
        )}, ${sqlArray(
          ordered.map((k) => k.size),
          "bigint",
        )}) as u(sha256, size)
        order by u.sha256
        on conflict (scope, sha256) do update set pins = ${contents}.pins + 1, pinned_at = excluded.pinned_at,
          size = case when ${sameSize} or not (${resizable}) then ${contents}.size else excluded.size end,
          storage_ref = case when ${sameSize} then ${contents}.storage_ref when ${resizable} then null else ${contents}.storage_ref end${
            holdUntil
              ? sql`, hold_until = case when ${sameSize} then greatest(${contents}.hold_until, excluded.hold_until) when ${resizable} then excluded.hold_until else ${contents}.hold_until end`
              : sql``
          }
        returning sha256, size, storage_ref`,
  );
  return rows.map((r) => ({ sha256: r.sha256, size: Number(r.size), storageRef: r.storage_ref }));
}

/** Records where the verified bytes of a content are stored, and their size (which they, not a declaration, decide). */
export async function markContentStored(
  db: Db,
  scope: string,
  sha256: string,
  storageRef: string,
  size: number,
): Promise<void> {
  await db
    .update(contents)
    .set({ storageRef, size })
    .where(and(eq(contents.scope, scope), eq(contents.sha256, sha256)));
}

/** Records where the verified bytes of several contents are stored, and their sizes, in one statement (three arrays). */
export async function markContentsStored(
  db: Db,
  scope: string,
  stored: Array<{ sha256: string; storageRef: string; size: number }>,
): Promise<void> {
  if (stored.length === 0) return;
  await db.execute(
    sql`update ${contents} set storage_ref = u.ref, size = u.size
        from unnest(${sqlArray(
          stored.map((s) => s.sha256),
          "text",
        )}, ${sqlArray(
          stored.map((s) => s.storageRef),
          "text",
        )}, ${sqlArray(
          stored.map((s) => s.size),
          "bigint",
        )}) as u(sha256, ref, size)
        where ${contents}.scope = ${scope} and ${contents}.sha256 = u.sha256
          and (${contents}.scope, ${contents}.sha256) in (${lockedInHashOrder(
            scope,
            stored.map((s) => s.sha256),
          )})`,
  );
}

/** Records that a content's stored bytes are gone (they did not verify and were deleted): a preflight then asks for them again. */
export async function forgetContentBytes(db: Db, scope: string, sha256: string): Promise<void> {
  await db
    .update(contents)
    .set({ storageRef: null })
    .where(and(eq(contents.scope, scope), eq(contents.sha256, sha256)));
}

/**
 * Releases one pin of each content; with `endHolds`, their holds end in the same statement (a
 * preflight's hold, or a zip archive's, once files reference the contents or its deploy has
 * unpacked it: one update of the rows, not two, which cost a 900-file deploy 13 ms).
 */
export async function unpinContents(
  db: Db,
  scope: string,
  shas: string[],
  opts: { endHolds?: boolean } = {},
): Promise<void> {
  if (shas.length === 0) return;
  await db
    .update(contents)
    .set(
      opts.endHolds
        ? { pins: sql`greatest(${contents.pins} - 1, 0)`, holdUntil: null }
        : { pins: sql`greatest(${contents.pins} - 1, 0)` },
    )
    .where(sql`(${contents.scope}, ${contents.sha256}) in (${lockedInHashOrder(scope, shas)})`);
}

/**
 * Pins stored contents of a scope by hash (deploy by reference) and returns those it pinned;
 * hashes without stored bytes in the scope are left out (and not pinned).
 */
export async function pinStoredContents(db: Db, scope: string, shas: string[], now: Date): Promise<PinnedContent[]> {
  if (shas.length === 0) return [];
  return db
    .update(contents)
    .set({ pins: sql`${contents.pins} + 1`, pinnedAt: now })
    .where(
      and(
        sql`(${contents.scope}, ${contents.sha256}) in (${lockedInHashOrder(scope, shas)})`,
        isNotNull(contents.storageRef),
      ),
    )
    .returning({ sha256: contents.sha256, size: contents.size, storageRef: contents.storageRef });
}

/** One content row of a scope, or undefined. */
export async function findContent(db: Db, scope: string, sha256: string): Promise<ContentRow | undefined> {
  const [row] = await db
    .select()
    .from(contents)
    .where(and(eq(contents.scope, scope), eq(contents.sha256, sha256)))
    .limit(1);
  return row;
}

/** Contents whose preflight hold has passed (candidates for the cleanup job's purge). */
export async function expiredHolds(
  db: Db,
  now: Date,
  limit: number,
): Promise<Array<{ scope: string; sha256: string }>> {
  return db
    .select({ scope: contents.scope, sha256: contents.sha256 })
    .from(contents)
    .where(lte(contents.holdUntil, now))
    .limit(limit);
}

/**
 * Bytes a caller holds that no drop uses: contents held past `now` and referenced by no file,
 * in the account's scope, or in the scopes of an anonymous holder's live upload grants.
 */
export async function heldBytes(db: Db, whose: { scope: string } | { holder: string }, now: Date): Promise<number> {
  const at = sql`${now.toISOString()}::timestamptz`;
  const scopes =
    "scope" in whose
      ? sql`c.scope = ${whose.scope}`
      : sql`c.scope in (select g.scope from ${uploadGrants} g where g.holder = ${whose.holder} and g.expires_at > ${at})`;
  const [row] = await rowsOf<{ n: number | string | null }>(
    db,
    sql`select coalesce(sum(c.size), 0) as n from ${contents} c
        where ${scopes} and c.hold_until > ${at}
          and not exists (select 1 from ${files} f where f.scope = c.scope and f.sha256 = c.sha256)`,
  );
  return Number(row?.n ?? 0);
}

export async function insertUploadGrant(
  db: Db,
  grant: { id: string; scope: string; accountId: string | null; holder: string | null; expiresAt: Date },
): Promise<void> {
  await db.insert(uploadGrants).values(grant);
}

/** A grant by the SHA-256 of its token, while it has not expired. */
export async function findUploadGrant(
  db: Db,
  id: string,
  now: Date,
): Promise<{ scope: string; accountId: string | null; expiresAt: Date } | undefined> {
  const [row] = await db
    .select({ scope: uploadGrants.scope, accountId: uploadGrants.accountId, expiresAt: uploadGrants.expiresAt })
    .from(uploadGrants)
    .where(and(eq(uploadGrants.id, id), gt(uploadGrants.expiresAt, now)))
    .limit(1);
  return row;
}

/**
 * Rows that say they hold no bytes (storage_ref null) and that nothing pins or holds any more:
 * what a request or a purge cut off midway left (candidates for the cleanup job's purge).
 */
export async function bytelessContents(
  db: Db,
  now: Date,
  limit: number,
): Promise<Array<{ scope: string; sha256: string }>> {
  const stale = new Date(now.getTime() - STALE_PIN_MS);
  return db
    .select({ scope: contents.scope, sha256: contents.sha256 })
    .from(contents)
    .where(
      and(
        isNull(contents.storageRef),
        or(eq(contents.pins, 0), isNull(contents.pinnedAt), lte(contents.pinnedAt, stale)),
        or(isNull(contents.holdUntil), lte(contents.holdUntil, now)),
      ),
    )
    .limit(limit);
}

/** Ends passed holds (after their purge) and deletes expired grants. */
export async function endExpiredHolds(db: Db, now: Date): Promise<void> {
  await db.update(contents).set({ holdUntil: null }).where(lte(contents.holdUntil, now));
  await db.delete(uploadGrants).where(lte(uploadGrants.expiresAt, now));
}

/**
 * Removes the contents of a scope among `shas` that no file references, no live pin holds and
 * no hold keeps. Storage and the database cannot commit together, so it takes two steps, each
 * under the row's lock: first the row is found unused and marked as holding no bytes
 * (storage_ref null), and that commits; then, if no deploy pinned or stored it meanwhile,
 * `removeBytes` runs (with the old ref, or null when the row had none) and the row goes. A
 * failure at any point (the database going away included) leaves a row that says it has no
 * bytes, which a later pin stores anew and a later purge removes, but never a row pointing at
 * removed bytes. Returns the hashes removed. `removeBytes` also runs for rows without a ref:
 * bytes a client wrote straight to storage are recorded only once verified, and the caller
 * knows where such bytes would be.
 */
export async function purgeContents(
  db: Db,
  scope: string,
  shas: string[],
  now: Date,
  removeBytes: (ref: string | null, row: { sha256: string; size: number }) => Promise<void>,
): Promise<string[]> {
  const removed: string[] = [];
  const where = (sha256: string) => and(eq(contents.scope, scope), eq(contents.sha256, sha256));
  for (const sha256 of new Set(shas)) {
    const marked = await db.transaction(async (tx) => {
      const [row] = await tx.select().from(contents).where(where(sha256)).for("update");
      if (!row || !(await unused(tx, row, now))) return undefined;
      if (row.storageRef !== null) await tx.update(contents).set({ storageRef: null }).where(where(sha256));
      return { ref: row.storageRef };
    });
    if (!marked) continue;
    const gone = await db.transaction(async (tx) => {
      const [row] = await tx.select().from(contents).where(where(sha256)).for("update");
      // A deploy pinned (or pinned and stored) it between the two steps: it stays.
      if (!row || row.storageRef !== null || !(await unused(tx, row, now))) return false;
      await removeBytes(marked.ref, row);
      await tx.delete(contents).where(where(sha256));
      return true;
    });
    if (gone) removed.push(sha256);
  }
  return removed;
}

/** No live pin, no hold, no file reference: the row may go (checked under its lock). */
async function unused(tx: Pick<Db, "select">, row: ContentRow, now: Date): Promise<boolean> {
  if (row.pins > 0 && row.pinnedAt && now.getTime() - row.pinnedAt.getTime() < STALE_PIN_MS) return false;
  if (row.holdUntil && row.holdUntil.getTime() > now.getTime()) return false;
  const [ref] = await tx
    .select({ one: sql<number>`1` })
    .from(files)
    .where(and(eq(files.scope, row.scope), eq(files.sha256, row.sha256)))
    .limit(1);
  return !ref;
}

/** The contents a drop's files reference, by scope (rows of older drops without a scope are left out). */
export type ScopedHashes = Map<string, string[]>;

export function groupByScope(rows: Array<{ scope: string | null; sha256: string }>): ScopedHashes {
  const out: ScopedHashes = new Map();
  for (const r of rows) {
    if (r.scope === null) continue;
    const list = out.get(r.scope) ?? [];
    list.push(r.sha256);
    out.set(r.scope, list);
  }
  return out;
}
