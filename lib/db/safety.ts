import { and, asc, count, desc, eq, gt, inArray, isNotNull, isNull, not, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { recordAudit, type AuditAction } from "./audit";
import { recordEvent } from "./events";
import { prefixedId } from "../ids";
import {
  accounts,
  blocks,
  drops,
  renderChecks,
  reports,
  scanFindings,
  type AccountRow,
  type BlockRow,
  type DropRow,
  type ReportRow,
  type ScanFindingRow,
} from "./schema";

// The queries of trust and safety: reports, the review queue, a drop's disabled state, an
// account's suspension, address blocks. Every operator change writes its audit entry (and the
// owner's webhook event, where there is one) in its own transaction.

export interface Actor {
  /** An account id, `cli`, `scan` or `system`. */
  id: string;
}

// --- reports -------------------------------------------------------------------------------

export async function insertReport(
  db: Db,
  r: Omit<typeof reports.$inferInsert, "id" | "status" | "createdAt">,
  now: Date,
): Promise<ReportRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(reports)
      .values({ ...r, id: prefixedId("rep"), createdAt: now })
      .returning();
    await recordAudit(tx, {
      actor: "system",
      action: "report.received",
      target: `drop:${r.slug}`,
      reason: r.reason,
      data: { report: row!.id },
      at: now,
    });
    return row!;
  });
}

export async function findReport(db: Db, id: string): Promise<ReportRow | undefined> {
  const [row] = await db.select().from(reports).where(eq(reports.id, id)).limit(1);
  return row;
}

/** A drop's reports (newest first) and scan findings, for the admin page. */
export async function dropCase(db: Db, dropId: string): Promise<{ reports: ReportRow[]; findings: ScanFindingRow[] }> {
  const [r, f] = await Promise.all([
    db.select().from(reports).where(eq(reports.dropId, dropId)).orderBy(desc(reports.createdAt)).limit(200),
    db
      .select()
      .from(scanFindings)
      .where(eq(scanFindings.dropId, dropId))
      .orderBy(desc(scanFindings.createdAt))
      .limit(200),
  ]);
  return { reports: r, findings: f };
}

/** Resolves every open report and open finding of a drop, with the audit entry; the report ids resolved. */
export async function resolveDropReports(
  db: Db,
  drop: Pick<DropRow, "id" | "slug">,
  resolution: "dismissed" | "disabled" | "deleted",
  actor: Actor,
  note: string | null,
  now: Date,
): Promise<string[]> {
  return db.transaction(async (tx) => {
    const resolved = await tx
      .update(reports)
      .set({ status: "resolved", resolution, resolvedAt: now })
      .where(and(eq(reports.dropId, drop.id), eq(reports.status, "open")))
      .returning({ id: reports.id });
    await tx
      .update(scanFindings)
      .set({ resolvedAt: now })
      .where(and(eq(scanFindings.dropId, drop.id), isNull(scanFindings.resolvedAt)));
    await recordAudit(tx, {
      actor: actor.id,
      action: "report.resolved",
      target: `drop:${drop.slug}`,
      reason: resolution,
      data: { reports: resolved.map((r) => r.id), ...(note ? { note } : {}) },
      at: now,
    });
    return resolved.map((r) => r.id);
  });
}

// --- the queue -----------------------------------------------------------------------------

export interface QueueRow {
  drop: Pick<DropRow, "id" | "slug" | "ownerId" | "disabledReason" | "disabledAt">;
  ownerEmail: string | null;
  /** The desktop screenshot of the drop's latest render check, if any (its thumbnail). */
  screenshotId: string | null;
  reports: Pick<ReportRow, "reason" | "reporterHash" | "createdAt">[];
  findings: ScanFindingRow[];
}

const openReport = (dropId: SQL | typeof drops.id) =>
  sql`exists (select 1 from ${reports} where ${reports.dropId} = ${dropId} and ${reports.status} = 'open')`;
const openFinding = (dropId: SQL | typeof drops.id) =>
  sql`exists (select 1 from ${scanFindings} where ${scanFindings.dropId} = ${dropId} and ${scanFindings.resolvedAt} is null and ${scanFindings.action} = 'flagged')`;
const anyCase = (dropId: SQL | typeof drops.id) =>
  sql`(exists (select 1 from ${reports} where ${reports.dropId} = ${dropId}) or exists (select 1 from ${scanFindings} where ${scanFindings.dropId} = ${dropId}))`;

/**
 * Drops with open reports or open scan flags (status open), or whose reports and flags are all
 * resolved (status resolved); most reported first (distinct addresses), then the newest report.
 */
export async function listQueue(
  db: Db,
  status: "open" | "resolved",
  limit: number,
  offset: number,
): Promise<{ total: number; rows: QueueRow[] }> {
  const isOpen = or(openReport(drops.id), openFinding(drops.id));
  const where = status === "open" ? isOpen : and(anyCase(drops.id), not(isOpen!));
  const wantStatus = status === "open" ? "open" : "resolved";
  const [total] = await db.select({ n: count() }).from(drops).where(where);
  const page = await db
    .select({
      id: drops.id,
      slug: drops.slug,
      ownerId: drops.ownerId,
      disabledReason: drops.disabledReason,
      disabledAt: drops.disabledAt,
      ownerEmail: accounts.email,
      screenshotId: renderChecks.desktopId,
    })
    .from(drops)
    .leftJoin(accounts, eq(accounts.id, drops.ownerId))
    .leftJoin(renderChecks, eq(renderChecks.dropId, drops.id))
    .where(where)
    .orderBy(
      desc(
        sql`(select count(distinct ${reports.reporterHash}) from ${reports} where ${reports.dropId} = ${drops.id} and ${reports.status} = ${wantStatus})`,
      ),
      desc(sql`(select max(${reports.createdAt}) from ${reports} where ${reports.dropId} = ${drops.id})`),
      asc(drops.slug),
    )
    .limit(limit)
    .offset(offset);
  const ids = page.map((p) => p.id);
  const [reportRows, findingRows] = ids.length
    ? await Promise.all([
        db
          .select({
            dropId: reports.dropId,
            reason: reports.reason,
            reporterHash: reports.reporterHash,
            createdAt: reports.createdAt,
          })
          .from(reports)
          .where(and(inArray(reports.dropId, ids), eq(reports.status, wantStatus))),
        db
          .select()
          .from(scanFindings)
          .where(
            and(
              inArray(scanFindings.dropId, ids),
              status === "open" ? isNull(scanFindings.resolvedAt) : isNotNull(scanFindings.resolvedAt),
            ),
          ),
      ])
    : [[], []];
  return {
    total: total?.n ?? 0,
    rows: page.map(({ ownerEmail, screenshotId, ...drop }) => ({
      drop,
      ownerEmail,
      screenshotId,
      reports: reportRows.filter((r) => r.dropId === drop.id),
      findings: findingRows.filter((f) => f.dropId === drop.id),
    })),
  };
}

// --- disabled drops ------------------------------------------------------------------------

/**
 * Disables (reason) or enables (null) a drop: the row, the owner's drop.disabled / drop.enabled
 * event and the audit entry in one transaction. Undefined when the drop is gone.
 */
export async function setDropDisabled(
  db: Db,
  slug: string,
  state: { reason: string; note: string | null } | null,
  actor: Actor,
  now: Date,
): Promise<Pick<DropRow, "id" | "slug" | "disabledReason" | "disabledAt"> | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(drops)
      .set(state ? { disabledReason: state.reason, disabledAt: now } : { disabledReason: null, disabledAt: null })
      .where(eq(drops.slug, slug))
      .returning({
        id: drops.id,
        slug: drops.slug,
        ownerId: drops.ownerId,
        liveVersion: drops.liveVersion,
        disabledReason: drops.disabledReason,
        disabledAt: drops.disabledAt,
      });
    if (!row) return undefined;
    await recordEvent(tx, {
      accountId: row.ownerId,
      type: state ? "drop.disabled" : "drop.enabled",
      data: { slug: row.slug, version: row.liveVersion, ...(state ? { reason: state.reason } : {}) },
      now,
    });
    await recordAudit(tx, {
      actor: actor.id,
      action: state ? "drop.disabled" : "drop.enabled",
      target: `drop:${row.slug}`,
      reason: state?.reason ?? null,
      data: state?.note ? { note: state.note } : null,
      at: now,
    });
    return row;
  });
}

// --- accounts ------------------------------------------------------------------------------

/** Suspends (reason) or unsuspends (null) an account, with the audit entry; the drops it owns. */
export async function setAccountSuspended(
  db: Db,
  accountId: string,
  state: { reason: string; note: string | null } | null,
  actor: Actor,
  now: Date,
): Promise<{ account: AccountRow; drops: Pick<DropRow, "id" | "slug">[] } | undefined> {
  return db.transaction(async (tx) => {
    const [account] = await tx
      .update(accounts)
      .set(state ? { suspendedReason: state.reason, suspendedAt: now } : { suspendedReason: null, suspendedAt: null })
      .where(eq(accounts.id, accountId))
      .returning();
    if (!account) return undefined;
    await recordAudit(tx, {
      actor: actor.id,
      action: state ? "account.suspended" : "account.unsuspended",
      target: `account:${account.id}`,
      reason: state?.reason ?? null,
      data: state?.note ? { note: state.note } : null,
      at: now,
    });
    const owned = await tx.select({ id: drops.id, slug: drops.slug }).from(drops).where(eq(drops.ownerId, account.id));
    return { account, drops: owned };
  });
}

/** Makes an account an operator (`npm run admin -- grant-admin`), with the audit entry. */
export async function grantAdmin(db: Db, accountId: string, actor: Actor, now: Date): Promise<AccountRow | undefined> {
  return db.transaction(async (tx) => {
    const [account] = await tx
      .update(accounts)
      .set({ adminGrantedAt: now })
      .where(eq(accounts.id, accountId))
      .returning();
    if (!account) return undefined;
    await recordAudit(tx, { actor: actor.id, action: "admin.granted", target: `account:${account.id}`, at: now });
    return account;
  });
}

// --- blocks --------------------------------------------------------------------------------

export async function insertBlock(
  db: Db,
  b: { cidr: string; reason: string; expiresAt: Date | null },
  actor: Actor,
  now: Date,
): Promise<BlockRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(blocks)
      .values({ id: prefixedId("blk"), ...b, createdBy: actor.id, createdAt: now })
      .returning();
    await auditBlock(tx, "block.added", row!, actor, now);
    return row!;
  });
}

async function auditBlock(
  tx: Parameters<Parameters<Db["transaction"]>[0]>[0],
  action: AuditAction,
  row: BlockRow,
  actor: Actor,
  now: Date,
) {
  await recordAudit(tx, {
    actor: actor.id,
    action,
    target: `block:${row.cidr}`,
    reason: row.reason,
    data: { block: row.id },
    at: now,
  });
}

/** The blocks in force at `now` (unexpired), newest first. */
export async function listBlocks(db: Db, now: Date): Promise<BlockRow[]> {
  return db
    .select()
    .from(blocks)
    .where(or(isNull(blocks.expiresAt), gt(blocks.expiresAt, now)))
    .orderBy(desc(blocks.createdAt));
}

export async function deleteBlock(db: Db, id: string, actor: Actor, now: Date): Promise<BlockRow | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx.delete(blocks).where(eq(blocks.id, id)).returning();
    if (row) await auditBlock(tx, "block.removed", row, actor, now);
    return row;
  });
}
