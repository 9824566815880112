import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import type { SiteRules } from "../rules/types";
import { accounts, domains, dropAliases, drops, dropVersions, files, type DropRow, type FileRow } from "./schema";

// The serve path's queries: a drop's whole manifest in one statement (so it is one snapshot,
// never a mix of two versions), and the drop row alone to revalidate a cached manifest.

/**
 * Which drop a drop host names: a slug, a named drop behind a vanity sub, or the drop an active
 * custom domain points at (by slug, and only while the domain's account owns that drop).
 */
export type DropKey = { slug: string } | { sub: string; name: string } | { domain: string } | PreviewKey;

/** A preview host's drop (by slug) and the version it names, by number or by alias. */
export type PreviewKey = { preview: string; version: number } | { preview: string; alias: string };

export type ManifestDrop = Pick<
  DropRow,
  "id" | "slug" | "ownerId" | "expiresAt" | "purgeAt" | "accessMode" | "accessPolicyVersion"
> & {
  claimable: boolean;
  /** Changes with every replace, append, rollback, claim, ttl or access change of the drop. */
  version: string;
  /** The drop version served (the files are that version's). */
  liveVersion: number;
  /**
   * A preview key's version when the drop still keeps it; null when it was pruned or never was
   * (undefined for every other key).
   */
  previewVersion?: number | null;
  /**
   * Set while an operator has disabled the drop or suspended its owner: it answers 451 with the
   * reason category, and no byte of it is read. The drop's own disable wins over the account's.
   */
  disabled: { reason: string; at: Date } | null;
};
export type ManifestFile = Pick<FileRow, "path" | "size" | "sha256" | "contentType" | "storageRef">;

const dropColumns = {
  id: drops.id,
  slug: drops.slug,
  ownerId: drops.ownerId,
  expiresAt: drops.expiresAt,
  purgeAt: drops.purgeAt,
  claimable: sql<boolean>`${drops.claimTokenHash} is not null`,
  redeployCount: drops.redeployCount,
  fileCount: drops.fileCount,
  updatedAt: drops.updatedAt,
  accessMode: drops.accessMode,
  accessPolicyVersion: drops.accessPolicyVersion,
  liveVersion: drops.liveVersion,
  disabledReason: drops.disabledReason,
  disabledAt: drops.disabledAt,
  // The owner's suspension, by primary key: the manifest carries it, so serving looks up nothing more.
  suspendedReason: sql<string | null>`(select o.suspended_reason from ${accounts} o where o.id = ${drops.ownerId})`,
  suspendedAt: sql<Date | null>`(select o.suspended_at from ${accounts} o where o.id = ${drops.ownerId})`.mapWith(
    drops.disabledAt,
  ),
};

type DropCols = { [K in keyof typeof dropColumns]: unknown } & Pick<
  DropRow,
  | "id"
  | "slug"
  | "ownerId"
  | "expiresAt"
  | "purgeAt"
  | "redeployCount"
  | "fileCount"
  | "updatedAt"
  | "accessMode"
  | "accessPolicyVersion"
  | "liveVersion"
  | "disabledReason"
  | "disabledAt"
> & { suspendedReason: string | null; suspendedAt: Date | null };

function toDrop(r: DropCols, previewVersion?: number | null): ManifestDrop {
  const version = [
    r.id,
    r.liveVersion,
    r.redeployCount,
    r.fileCount,
    r.updatedAt.getTime(),
    r.ownerId ?? "",
    r.expiresAt?.getTime() ?? "",
    r.purgeAt?.getTime() ?? "",
    r.accessMode,
    r.accessPolicyVersion,
    r.disabledReason ?? "",
    r.suspendedReason ?? "",
    previewVersion === undefined ? "" : `p${previewVersion ?? "-"}`,
  ].join(":");
  const disabled =
    r.disabledReason !== null && r.disabledAt !== null
      ? { reason: r.disabledReason, at: r.disabledAt }
      : r.suspendedReason !== null && r.suspendedAt !== null
        ? { reason: r.suspendedReason, at: r.suspendedAt }
        : null;
  return {
    id: r.id,
    slug: r.slug,
    ownerId: r.ownerId,
    expiresAt: r.expiresAt,
    purgeAt: r.purgeAt,
    claimable: Boolean(r.claimable),
    accessMode: r.accessMode,
    accessPolicyVersion: r.accessPolicyVersion,
    version,
    liveVersion: r.liveVersion,
    disabled,
    ...(previewVersion === undefined ? {} : { previewVersion }),
  };
}

function where(key: DropKey): SQL | undefined {
  if ("slug" in key) return eq(drops.slug, key.slug);
  if ("preview" in key) return eq(drops.slug, key.preview);
  if ("domain" in key) return and(eq(domains.hostname, key.domain), eq(domains.status, "active"));
  return and(eq(accounts.vanitySub, key.sub), eq(drops.name, key.name));
}

/** The join a key needs before its where: the owner's account (vanity), the domain row (custom). */
function joinFor<Q extends { innerJoin: (table: typeof accounts | typeof domains, on: SQL | undefined) => Q }>(
  q: Q,
  key: DropKey,
): Q {
  if ("slug" in key || "preview" in key) return q;
  if ("domain" in key)
    return q.innerJoin(domains, and(eq(domains.slug, drops.slug), eq(domains.accountId, drops.ownerId)));
  return q.innerJoin(accounts, eq(accounts.id, drops.ownerId));
}

/**
 * The version a preview key names, when the drop keeps it (null otherwise): a column of the
 * drop's row, so the manifest and its revalidation read it in the same statement as the drop.
 * An alias names its version (aliased versions are never pruned).
 */
function previewVersionColumn(key: PreviewKey): SQL<number | null> {
  if ("alias" in key)
    return sql<number | null>`(select ${dropAliases.version} from ${dropAliases}
      join ${dropVersions} on ${dropVersions.dropId} = ${dropAliases.dropId} and ${dropVersions.version} = ${dropAliases.version}
      where ${dropAliases.dropId} = ${drops.id} and ${dropAliases.name} = ${key.alias})`;
  return sql<number | null>`(select ${dropVersions.version} from ${dropVersions}
    where ${dropVersions.dropId} = ${drops.id} and ${dropVersions.version} = ${key.version}::int)`;
}

/** The drop row a key names (for revalidation), or undefined. */
export async function findDropVersion(db: Db, key: DropKey): Promise<ManifestDrop | undefined> {
  if ("preview" in key) {
    const rows = await db
      .select({ ...dropColumns, previewVersion: previewVersionColumn(key) })
      .from(drops)
      .where(where(key))
      .limit(1);
    const r = rows[0];
    return r ? toDrop(r, r.previewVersion) : undefined;
  }
  const rows = await joinFor(db.select(dropColumns).from(drops).$dynamic(), key).where(where(key)).limit(1);
  const r = rows[0];
  return r ? toDrop(r) : undefined;
}

/**
 * The drop a key names with all the files of its live version (a preview key: of the version it
 * names, while the drop keeps it) and that version's site rules, in one statement; undefined when
 * there is none. The rules (a drop's largest column, often null) come on the first row only.
 */
export async function loadManifest(
  db: Db,
  key: DropKey,
): Promise<{ drop: ManifestDrop; files: ManifestFile[]; siteRules: SiteRules | null } | undefined> {
  const cols = {
    ...dropColumns,
    path: files.path,
    size: files.size,
    sha256: files.sha256,
    contentType: files.contentType,
    storageRef: files.storageRef,
    siteRules: sql<SiteRules | null>`case when row_number() over () = 1 then ${rulesOf(key)} end`.mapWith(
      drops.siteRules,
    ),
    previewVersion: "preview" in key ? previewVersionColumn(key) : sql<null>`null`,
  };
  const joined = joinFor(db.select(cols).from(drops).$dynamic(), key);
  const served = "preview" in key ? versionFiles(key) : eq(files.version, drops.liveVersion);
  const rows = await joined.leftJoin(files, and(eq(files.dropId, drops.id), served)).where(where(key));
  const first = rows[0];
  if (!first) return undefined;
  return {
    drop: toDrop(first, "preview" in key ? first.previewVersion : undefined),
    siteRules: rows.find((r) => r.siteRules)?.siteRules ?? null,
    files: rows.flatMap((r) =>
      r.path === null || r.size === null || r.sha256 === null || r.contentType === null || r.storageRef === null
        ? []
        : [{ path: r.path, size: r.size, sha256: r.sha256, contentType: r.contentType, storageRef: r.storageRef }],
    ),
  };
}

/** The site rules a key's version has: the live version's copy on the drop row, or a kept version's own. */
function rulesOf(key: DropKey): SQL | typeof drops.siteRules {
  if (!("preview" in key)) return drops.siteRules;
  return sql`(select ${dropVersions.siteRules} from ${dropVersions}
    where ${dropVersions.dropId} = ${drops.id} and ${dropVersions.version} = ${previewVersionColumn(key)})`;
}

/** The file rows of the version a preview key names, only while the drop keeps that version. */
function versionFiles(key: PreviewKey): SQL {
  return sql`${files.version} = ${previewVersionColumn(key)}`;
}

/** One row of the change feed (drop_changes), as the serve path's poller reads it. */
export interface FeedChange {
  seq: number;
  kind: "drop" | "domain" | "account";
  dropId: string | null;
  slug: string | null;
  /** A domain change: its hostname; an account change: the account id. */
  ref: string | null;
}

/**
 * The feed's rows written by transactions with an id at or above `sinceXmin` (all of them that
 * have committed), and the xmin of this statement's snapshot: every transaction not committed
 * as that snapshot was taken has an id at or above it, so the next read from there misses none,
 * however sequence values committed out of order. One statement, so one snapshot.
 */
export async function readChanges(db: Db, sinceXmin: string | null): Promise<{ xmin: string; changes: FeedChange[] }> {
  const res = (await db.execute(sql`
    select pg_snapshot_xmin(pg_current_snapshot())::text as xmin,
      coalesce((select json_agg(json_build_object('seq', c.seq, 'kind', c.kind, 'dropId', c.drop_id,
                                                  'slug', c.slug, 'ref', c.ref) order by c.seq)
                from drop_changes c where c.xid >= ${sinceXmin}::text::xid8), '[]'::json) as changes`)) as {
    rows: { xmin: string; changes: FeedChange[] | string }[];
  };
  const row = res.rows[0]!;
  const changes = typeof row.changes === "string" ? (JSON.parse(row.changes) as FeedChange[]) : row.changes;
  return { xmin: row.xmin, changes: changes.map((c) => ({ ...c, seq: Number(c.seq) })) };
}

/** Deletes the feed's rows older than `olderThanMs` (the pollers have long read them). */
export async function pruneChanges(db: Db, olderThanMs: number): Promise<void> {
  await db.execute(
    sql`delete from drop_changes where at < now() - make_interval(secs => ${olderThanMs / 1000}::double precision)`,
  );
}
