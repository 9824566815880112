import { and, asc, desc, eq, getTableColumns, isNull, lte, sql } from "drizzle-orm";
import { anyOf, sqlArray } from "./arrays";
import { sqlState } from "./errors";
import type { Db } from "./client";
import { accounts, drops, files, type DropRow, type FileRow } from "./schema";
import type { SiteRules } from "../rules/types";
import { recordEvent } from "./events";
import { unverifyDropDomains } from "./domains";
import { commitWrite, copyVersionFiles, nextVersion, sameFiles, type Publish, type Tx } from "./versions";

// Named queries over drops and files. Routes and services never build SQL themselves.

export type NewDrop = typeof drops.$inferInsert;
export type NewFile = typeof files.$inferInsert;

/**
 * Locks the owner's account row and counts its drops, inside a transaction: parallel inserts
 * and claims for one account queue on the lock, so a cap checked here holds.
 */
async function ownedDropsLocked(tx: Tx, ownerId: string): Promise<number> {
  await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, ownerId)).for("update");
  const [row] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(drops)
    .where(eq(drops.ownerId, ownerId));
  return row?.n ?? 0;
}

/**
 * Inserts file rows in one statement whatever their number: each column goes as one array
 * (see ./arrays). Every column of the table is sent, so a column the rows leave out is NULL
 * here, never its default (files has no defaults).
 */
async function insertFiles(tx: Pick<Db, "execute">, rows: NewFile[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.entries(getTableColumns(files)) as [
    keyof NewFile,
    (typeof files)["_"]["columns"][keyof NewFile],
  ][];
  const names = sql.join(
    columns.map(([, c]) => sql.identifier(c.name)),
    sql`, `,
  );
  const arrays = sql.join(
    columns.map(([key, c]) =>
      sqlArray(
        rows.map((r) => r[key] ?? null),
        c.getSQLType(),
      ),
    ),
    sql`, `,
  );
  await tx.execute(sql`insert into ${files} (${names}) select * from unnest(${arrays})`);
}

/** A file row as a write passes it: the version is the write's. */
export type WriteFile = Omit<NewFile, "version">;

const atVersion = (rows: WriteFile[], version: number): NewFile[] => rows.map((r) => ({ ...r, version }));
const bytesOf = (rows: WriteFile[]) => rows.reduce((n, r) => n + r.size, 0);

/**
 * Inserts a drop and its files (version 1) in one transaction. With `maxOwned`, an owned drop
 * is inserted only while its account has fewer drops (checked under the account's row lock);
 * otherwise nothing is written and the account's current count is returned as `{ capped }`.
 */
export async function insertDropWithFiles(
  db: Db,
  drop: NewDrop,
  rows: WriteFile[],
  maxOwned: number | null = null,
  publish?: Publish,
): Promise<{ capped: number } | undefined> {
  return db.transaction(async (tx) => {
    if (drop.ownerId && maxOwned !== null) {
      const owned = await ownedDropsLocked(tx, drop.ownerId);
      if (owned >= maxOwned) return { capped: owned };
    }
    await tx.insert(drops).values({ ...drop, liveVersion: 1, fileCount: rows.length, totalBytes: bytesOf(rows) });
    await insertFiles(tx, atVersion(rows, 1));
    await commitWrite(tx, {
      dropId: drop.id,
      kind: "deploy",
      version: 1,
      fileCount: rows.length,
      totalBytes: bytesOf(rows),
      now: drop.updatedAt ?? new Date(),
      siteRules: drop.siteRules ?? null,
      // A first deploy is always live.
      ...(publish ? { publish: { ...publish, promote: true } } : {}),
    });
    return undefined;
  });
}

export async function findDropBySlug(db: Db, slug: string): Promise<DropRow | undefined> {
  const [row] = await db.select().from(drops).where(eq(drops.slug, slug)).limit(1);
  return row;
}

export async function countDrops(db: Db): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(drops);
  return row?.n ?? 0;
}

export async function countFiles(db: Db): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(files);
  return row?.n ?? 0;
}

export async function findDropByOwnerName(db: Db, ownerId: string, name: string): Promise<DropRow | undefined> {
  const [row] = await db
    .select()
    .from(drops)
    .where(and(eq(drops.ownerId, ownerId), eq(drops.name, name)))
    .limit(1);
  return row;
}

export async function countOwnedDrops(db: Db, ownerId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(drops)
    .where(eq(drops.ownerId, ownerId));
  return row?.n ?? 0;
}

/** Every drop an account holds (a team's, as the team is deleted). */
export async function listDropsOf(db: Db, ownerId: string): Promise<DropRow[]> {
  return db.select().from(drops).where(eq(drops.ownerId, ownerId));
}

/** Whether an error is a unique-constraint violation (drizzle wraps the driver's error). */
export function isUniqueViolation(err: unknown): boolean {
  return sqlState(err) === "23505";
}

/** `version`: the version the write made (unchanged: the live one); `drop.liveVersion` is what is live after it. */
export type ReplaceOutcome =
  | { ok: true; drop: DropRow; unchanged: boolean; version: number }
  | { ok: false; reason: "gone" }
  | { ok: false; reason: "stale"; live: number };

/**
 * Makes new files the drop's next version, live, in one transaction under the drop's row lock
 * (the previous versions and their rows stay). With `ifMatch`, only while that version is live.
 * Files equal to the live version's (paths and hashes) change nothing: `unchanged`.
 */
export async function replaceDropFiles(
  db: Db,
  dropId: string,
  rows: WriteFile[],
  patch: { updatedAt: Date; expiresAt: Date | null; purgeAt: Date | null; siteRules: SiteRules | null },
  ifMatch: number | null = null,
  publish?: Publish,
): Promise<ReplaceOutcome> {
  return db.transaction(async (tx): Promise<ReplaceOutcome> => {
    const [locked] = await tx.select().from(drops).where(eq(drops.id, dropId)).for("update");
    if (!locked) return { ok: false, reason: "gone" };
    if (ifMatch !== null && ifMatch !== locked.liveVersion)
      return { ok: false, reason: "stale", live: locked.liveVersion };
    if (await sameFiles(tx, dropId, locked.liveVersion, rows))
      return { ok: true, drop: locked, unchanged: true, version: locked.liveVersion };
    const version = await nextVersion(tx, dropId);
    await insertFiles(tx, atVersion(rows, version));
    const drop = await commitWrite(tx, {
      dropId,
      kind: "replace",
      version,
      fileCount: rows.length,
      totalBytes: bytesOf(rows),
      now: patch.updatedAt,
      siteRules: patch.siteRules,
      patch: { expiresAt: patch.expiresAt, purgeAt: patch.purgeAt, redeployCount: sql`${drops.redeployCount} + 1` },
      ...(publish ? { publish } : {}),
    });
    return { ok: true, drop, unchanged: false, version };
  });
}

/** total: the drop's files (too_many) or bytes (too_large) when the append was refused. */
/** `version`, `fileCount`, `siteRules`: the new version's (live or staged); `drop`: the row after the write. */
export type AppendOutcome =
  | { ok: true; drop: DropRow; version: number; fileCount: number; siteRules: SiteRules | null }
  | { ok: false; reason: "gone" | "too_many" | "too_large"; total: number }
  | { ok: false; reason: "exists"; path: string }
  | { ok: false; reason: "stale"; live: number };

/**
 * Adds files to a drop as its next version (the live version's files plus these) under a row
 * lock, so concurrent appends cannot pass its file or byte maximum. With `ifMatch`, only while
 * that version is live. `rules` holds the rules of the rules files added, merged over the live
 * version's (per file).
 */
export async function appendDropFiles(
  db: Db,
  dropId: string,
  rows: WriteFile[],
  max: { files: number; bytes: number },
  now: Date,
  rules: SiteRules | null = null,
  ifMatch: number | null = null,
  publish?: Publish,
): Promise<AppendOutcome> {
  return db.transaction(async (tx): Promise<AppendOutcome> => {
    const [locked] = await tx.select().from(drops).where(eq(drops.id, dropId)).for("update");
    if (!locked) return { ok: false, reason: "gone", total: 0 };
    if (ifMatch !== null && ifMatch !== locked.liveVersion)
      return { ok: false, reason: "stale", live: locked.liveVersion };
    if (locked.fileCount + rows.length > max.files) return { ok: false, reason: "too_many", total: locked.fileCount };
    if (locked.totalBytes + bytesOf(rows) > max.bytes)
      return { ok: false, reason: "too_large", total: locked.totalBytes };
    const clash = await tx
      .select({ path: files.path })
      .from(files)
      .where(
        and(
          eq(files.dropId, dropId),
          eq(files.version, locked.liveVersion),
          anyOf(
            files.path,
            rows.map((r) => r.path),
          ),
        ),
      )
      .limit(1);
    if (clash[0]) return { ok: false, reason: "exists", path: clash[0].path };
    const version = await nextVersion(tx, dropId);
    await copyVersionFiles(tx, dropId, locked.liveVersion, version);
    await insertFiles(tx, atVersion(rows, version));
    const siteRules = rules ? { ...(locked.siteRules ?? {}), ...rules } : locked.siteRules;
    const drop = await commitWrite(tx, {
      dropId,
      kind: "append",
      version,
      fileCount: locked.fileCount + rows.length,
      totalBytes: locked.totalBytes + bytesOf(rows),
      now,
      siteRules,
      ...(publish ? { publish } : {}),
    });
    return { ok: true, drop, version, fileCount: locked.fileCount + rows.length, siteRules };
  });
}

/** A drop row without its site rules (lists never show them; they can be large). */
type ListedDropRow = Omit<DropRow, "siteRules">;

export async function listOwnedDrops(
  db: Db,
  ownerId: string,
  limit: number,
  offset: number,
): Promise<{ total: number; rows: ListedDropRow[] }> {
  const { siteRules: _rules, ...listed } = getTableColumns(drops);
  const rows = await db
    .select(listed)
    .from(drops)
    .where(eq(drops.ownerId, ownerId))
    .orderBy(desc(drops.createdAt), desc(drops.id))
    .limit(limit)
    .offset(offset);
  return { total: await countOwnedDrops(db, ownerId), rows };
}

/** The files of a drop's version (its live one, for callers that read a drop) by path, at most `limit` of them. */
export async function listDropFiles(
  db: Db,
  dropId: string,
  version: number,
  limit: number,
): Promise<Pick<FileRow, "path" | "size" | "contentType">[]> {
  return db
    .select({ path: files.path, size: files.size, contentType: files.contentType })
    .from(files)
    .where(and(eq(files.dropId, dropId), eq(files.version, version)))
    .orderBy(asc(files.path))
    .limit(limit);
}

/** The content a file row referenced: scope null for rows stored per batch before contents existed. */
export interface OldContent {
  scope: string | null;
  sha256: string;
}

/**
 * Deletes a drop's row (its files go with it) under the drop's row lock, which appends and
 * replaces also take, and returns the contents its files referenced, for the caller to purge,
 * and the hostnames of its custom domains, which go back to pending in the same transaction
 * (for the caller to detach at Vercel). Undefined when the drop was already gone. Records
 * drop.deleted, or drop.expired when the cleanup job purges it, for the owner's webhooks in the
 * same transaction. (The domains' change once followed the commit: a database lost in between
 * answered the delete with a 500 and left them active.)
 */
export async function deleteDropRow(
  db: Db,
  dropId: string,
  why: "deleted" | "expired",
  now: Date,
): Promise<{ old: OldContent[]; hostnames: string[] } | undefined> {
  return db.transaction(async (tx) => {
    const [locked] = await tx
      .select({ id: drops.id, slug: drops.slug, ownerId: drops.ownerId, version: drops.liveVersion })
      .from(drops)
      .where(eq(drops.id, dropId))
      .for("update");
    if (!locked) return undefined;
    const old = await tx
      .selectDistinct({ scope: files.scope, sha256: files.sha256 })
      .from(files)
      .where(eq(files.dropId, dropId));
    await tx.delete(drops).where(eq(drops.id, dropId));
    const hostnames = locked.ownerId === null ? [] : await unverifyDropDomains(tx, locked.ownerId, locked.slug);
    await recordEvent(tx, {
      accountId: locked.ownerId,
      type: why === "deleted" ? "drop.deleted" : "drop.expired",
      data: { slug: locked.slug, version: locked.version },
      now,
    });
    return { old, hostnames };
  });
}

/**
 * Gives an unclaimed drop to an account if the token hash still matches: one caller wins. With
 * `maxOwned`, only while the account has fewer drops (under its row lock). Records drop.claimed.
 */
export async function claimDropRow(
  db: Db,
  dropId: string,
  tokenHash: string,
  patch: { ownerId: string; expiresAt: Date | null; purgeAt: Date | null; updatedAt: Date },
  maxOwned: number | null = null,
): Promise<DropRow | { capped: number } | undefined> {
  return db.transaction(async (tx) => {
    if (maxOwned !== null) {
      const owned = await ownedDropsLocked(tx, patch.ownerId);
      if (owned >= maxOwned) return { capped: owned };
    }
    const [row] = await tx
      .update(drops)
      .set({ ...patch, claimTokenHash: null })
      .where(and(eq(drops.id, dropId), eq(drops.claimTokenHash, tokenHash), isNull(drops.ownerId)))
      .returning();
    // drop.claimed goes to the claiming account (before, the drop belonged to nobody).
    if (row)
      await recordEvent(tx, {
        accountId: row.ownerId,
        type: "drop.claimed",
        data: { slug: row.slug, version: row.liveVersion },
        now: patch.updatedAt,
      });
    return row;
  });
}

/** Drops due for purging, oldest first. */
export async function dueForPurge(
  db: Db,
  now: Date,
  limit: number,
): Promise<Pick<DropRow, "id" | "slug" | "ownerId">[]> {
  return db
    .select({ id: drops.id, slug: drops.slug, ownerId: drops.ownerId })
    .from(drops)
    .where(lte(drops.purgeAt, now))
    .orderBy(asc(drops.purgeAt))
    .limit(limit);
}

/** One round trip to the database (GET /healthz). */
export async function pingDatabase(db: Db): Promise<void> {
  await db.execute(sql`select 1`);
}
