import { and, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { SiteRules } from "../rules/types";
import type { Tier } from "../plans";
import type { Db } from "./client";
import { recordEvent } from "./events";
import {
  accounts,
  dropAliases,
  dropVersions,
  drops,
  files,
  type AccountRow,
  type DropRow,
  type DropVersionRow,
} from "./schema";

// Drop versions: every write that changes a drop's files adds one immutable version (its file
// rows carry the number); drops.live_version points at the one served. Rollback moves the
// pointer. Pruning removes the oldest versions beyond what the plan keeps, never the live one.

export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export type VersionKind = DropVersionRow["kind"];

/**
 * How a write publishes its new version: made live (`promote`), or staged beside the live one
 * (nothing served at the live host changes); and the version's own URL, for the write's event.
 */
export interface Publish {
  promote: boolean;
  versionUrl: (version: number) => string | null;
}

/** What a write did to a drop: a new version (deploy, replace, append) or a pointer move (rollback). */
export interface DropWrite {
  dropId: string;
  kind: VersionKind | "rollback";
  /** The version that becomes live (new for deploy, replace and append; retained for rollback). */
  version: number;
  fileCount: number;
  totalBytes: number;
  now: Date;
  /** The site rules of the version that becomes live (a rollback takes the target's own). */
  siteRules?: SiteRules | null;
  /** Other columns of the drop the write sets (lifetimes, the redeploy count); not for a staged write. */
  patch?: { expiresAt?: Date | null; purgeAt?: Date | null; redeployCount?: SQL };
  /** Deploys, replaces and appends: live or staged, and the event's `promoted` and `version_url`. */
  publish?: Publish;
}

/**
 * THE place where a write to a drop happens, inside the write's transaction (under the drop's
 * row lock): records a new version (unless it is a rollback), moves the live pointer and records
 * the write's event for the account's webhooks (the outbox). Every deploy, replace, append and
 * rollback goes through here, and only these.
 */
export async function commitWrite(tx: Tx, w: DropWrite): Promise<DropRow> {
  const siteRules = w.siteRules ?? null;
  const staged = w.kind !== "rollback" && w.publish?.promote === false;
  if (w.kind !== "rollback") {
    await tx.insert(dropVersions).values({
      dropId: w.dropId,
      version: w.version,
      kind: w.kind,
      fileCount: w.fileCount,
      totalBytes: w.totalBytes,
      createdAt: w.now,
      siteRules,
    });
  }
  // drops.site_rules is the live version's copy, read by the serve path's manifest in one statement.
  // A staged write leaves the live pointer, its counts and rules alone: only updated_at moves, so
  // the change feed tells other instances (a preview host of the new version cached as absent).
  const [row] = await tx
    .update(drops)
    .set(
      staged
        ? { updatedAt: w.now }
        : {
            liveVersion: w.version,
            fileCount: w.fileCount,
            totalBytes: w.totalBytes,
            updatedAt: w.now,
            siteRules,
            ...w.patch,
          },
    )
    .where(eq(drops.id, w.dropId))
    .returning();
  const drop = row as DropRow;
  const published = w.publish ? { promoted: !staged, version_url: w.publish.versionUrl(w.version) } : {};
  await recordEvent(tx, {
    accountId: drop.ownerId,
    type: writeEvents[w.kind],
    data: { slug: drop.slug, version: w.version, ...published },
    now: w.now,
  });
  return drop;
}

/** The event each kind of write records (the outbox, lib/db/events.ts). */
const writeEvents = {
  deploy: "drop.deployed",
  replace: "drop.replaced",
  append: "drop.appended",
  rollback: "drop.rolled_back",
} as const;

/** The number the next version of a locked drop gets: one more than any it ever had. */
export async function nextVersion(tx: Tx, dropId: string): Promise<number> {
  const [row] = await tx
    .select({ n: sql<number>`coalesce(max(${dropVersions.version}), 0)::int` })
    .from(dropVersions)
    .where(eq(dropVersions.dropId, dropId));
  return (row?.n ?? 0) + 1;
}

/** A drop's retained versions, newest first, and how many there are. */
export async function listVersions(
  db: Db,
  dropId: string,
  limit: number,
  offset: number,
): Promise<{ total: number; rows: DropVersionRow[] }> {
  const rows = await db
    .select()
    .from(dropVersions)
    .where(eq(dropVersions.dropId, dropId))
    .orderBy(desc(dropVersions.version))
    .limit(limit)
    .offset(offset);
  const [count] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(dropVersions)
    .where(eq(dropVersions.dropId, dropId));
  return { total: count?.n ?? 0, rows };
}

export type RollbackOutcome = { ok: true; drop: DropRow } | { ok: false; reason: "gone" | "no_version" };

/** Makes a retained version live (under the drop's row lock): a pointer move, no rows copied. */
export async function rollbackDrop(db: Db, dropId: string, version: number, now: Date): Promise<RollbackOutcome> {
  return db.transaction(async (tx): Promise<RollbackOutcome> => {
    const [locked] = await tx.select({ id: drops.id }).from(drops).where(eq(drops.id, dropId)).for("update");
    if (!locked) return { ok: false, reason: "gone" };
    const [target] = await tx
      .select()
      .from(dropVersions)
      .where(and(eq(dropVersions.dropId, dropId), eq(dropVersions.version, version)))
      .limit(1);
    if (!target) return { ok: false, reason: "no_version" };
    const drop = await commitWrite(tx, {
      dropId,
      kind: "rollback",
      version,
      fileCount: target.fileCount,
      totalBytes: target.totalBytes,
      now,
      siteRules: target.siteRules,
    });
    return { ok: true, drop };
  });
}

/** Drops with more than `atLeast` versions (candidates for pruning), with the owner's plan (null: no owner). */
export async function dropsWithManyVersions(
  db: Db,
  keep: Record<Tier, number>,
  limit: number,
): Promise<Array<{ id: string; slug: string; plan: AccountRow["plan"] | null }>> {
  // Only drops with a version pruneVersions would remove: past the newest `keep` of the owner's
  // plan, neither live nor aliased. A drop held above its count by its live or aliased versions,
  // or a pro drop between the fewest kept and its own, is not picked again at every run, so it
  // never takes the place of one that has something to prune.
  const kept = sql`case ${accounts.plan} ${sql.join(
    (Object.keys(keep) as Array<keyof typeof keep>)
      .filter((plan) => plan !== "anonymous")
      .map((plan) => sql`when ${plan} then ${keep[plan]}::int`),
    sql` `,
  )} else ${keep.anonymous}::int end`;
  return db
    .select({ id: drops.id, slug: drops.slug, plan: accounts.plan })
    .from(drops)
    .leftJoin(accounts, eq(accounts.id, drops.ownerId))
    .where(
      sql`exists (select 1 from ${dropVersions} v where v.drop_id = ${drops.id}
        and v.version <> ${drops.liveVersion}
        and not exists (select 1 from ${dropAliases} a where a.drop_id = v.drop_id and a.version = v.version)
        and (select count(*) from ${dropVersions} n where n.drop_id = v.drop_id and n.version > v.version) >= ${kept})`,
    )
    .limit(limit);
}

/** What a pruned version's file rows referenced: contents, or batches of rows older than contents. */
export interface PrunedRefs {
  contents: Array<{ scope: string | null; sha256: string }>;
  /** Batches of rows without a scope that no retained version of the drop uses any more. */
  batches: string[];
}

/**
 * Removes the versions of a drop beyond its newest `keep`, except the live one and every aliased
 * one (which stay beyond them), under the drop's row lock, and returns what their files referenced.
 */
export async function pruneVersions(db: Db, dropId: string, keep: number): Promise<PrunedRefs & { pruned: number[] }> {
  return db.transaction(async (tx) => {
    const [locked] = await tx.select({ live: drops.liveVersion }).from(drops).where(eq(drops.id, dropId)).for("update");
    if (!locked) return { pruned: [], contents: [], batches: [] };
    const all = await tx
      .select({ version: dropVersions.version })
      .from(dropVersions)
      .where(eq(dropVersions.dropId, dropId))
      .orderBy(desc(dropVersions.version));
    // The newest `keep` versions stay, and beyond them the live one and every aliased one.
    const aliased = await tx
      .select({ version: dropAliases.version })
      .from(dropAliases)
      .where(eq(dropAliases.dropId, dropId));
    const held = new Set([locked.live, ...aliased.map((a) => a.version)]);
    const pruned = all
      .slice(keep)
      .map((v) => v.version)
      .filter((v) => !held.has(v));
    if (pruned.length === 0) return { pruned, contents: [], batches: [] };
    const refs = await tx
      .selectDistinct({ scope: files.scope, sha256: files.sha256, batch: files.batch })
      .from(files)
      .where(and(eq(files.dropId, dropId), inArray(files.version, pruned)));
    await tx.delete(files).where(and(eq(files.dropId, dropId), inArray(files.version, pruned)));
    await tx.delete(dropVersions).where(and(eq(dropVersions.dropId, dropId), inArray(dropVersions.version, pruned)));
    const oldBatches = [...new Set(refs.filter((r) => r.scope === null).map((r) => r.batch))];
    const stillUsed =
      oldBatches.length === 0
        ? []
        : await tx
            .selectDistinct({ batch: files.batch })
            .from(files)
            .where(and(eq(files.dropId, dropId), inArray(files.batch, oldBatches)));
    const used = new Set(stillUsed.map((r) => r.batch));
    return {
      pruned,
      contents: refs.map((r) => ({ scope: r.scope, sha256: r.sha256 })),
      batches: oldBatches.filter((b) => !used.has(b)),
    };
  });
}

/** Whether `rows` (path and hash) are exactly the files of a locked drop's version. */
export async function sameFiles(
  tx: Tx,
  dropId: string,
  version: number,
  rows: Array<{ path: string; sha256: string }>,
): Promise<boolean> {
  const live = await tx
    .select({ path: files.path, sha256: files.sha256 })
    .from(files)
    .where(and(eq(files.dropId, dropId), eq(files.version, version)));
  if (live.length !== rows.length) return false;
  const want = new Map(live.map((f) => [f.path, f.sha256]));
  return rows.every((r) => want.get(r.path) === r.sha256);
}

/** Copies a version's file rows into a new version of the same drop (an append's base). */
export async function copyVersionFiles(tx: Tx, dropId: string, from: number, to: number): Promise<void> {
  await tx.execute(
    sql`insert into ${files} (drop_id, version, path, size, sha256, content_type, storage_ref, batch, scope)
        select drop_id, ${to}::int, path, size, sha256, content_type, storage_ref, batch, scope from ${files}
        where drop_id = ${dropId} and version = ${from}::int`,
  );
}
