import { and, count, desc, eq, type SQL } from "drizzle-orm";
import type { Db } from "./client";
import { prefixedId } from "../ids";
import { auditLog, type AuditRow } from "./schema";

// The audit log: append-only. These are the only functions that touch it, and neither updates
// nor deletes a row. recordAudit runs in the caller's transaction when given one, so an action
// and its entry commit together.

/** A transaction of the database, or the database itself. */
type DbOrTx = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

/** The audited actions (DESIGN "Trust and safety"). */
export type AuditAction =
  | "report.received"
  | "report.resolved"
  | "drop.disabled"
  | "drop.enabled"
  | "drop.deleted"
  | "account.suspended"
  | "account.unsuspended"
  | "block.added"
  | "block.removed"
  | "scan.refused"
  | "scan.flagged"
  | "admin.granted";

export interface NewAuditEntry {
  /** An account id, `cli`, `scan` or `system`. */
  actor: string;
  action: AuditAction;
  /** `drop:<slug>`, `account:<id>`, `block:<cidr>`, `report:<id>` or `address:<keyed hash>`. */
  target: string;
  reason?: string | null;
  data?: Record<string, unknown> | null;
  at?: Date;
}

let sequence = 0;

/**
 * An entry's id: aud_, the wall-clock time and a counter (so ids sort in the order this process
 * wrote them, the tiebreak of entries with one `at`), then randomness.
 */
export function auditId(): string {
  sequence = (sequence + 1) % 36 ** 4;
  const time = Date.now().toString(36).padStart(9, "0");
  return `${time}${sequence.toString(36).padStart(4, "0")}${prefixedId("aud").slice(4, 16)}`;
}

/** Appends one entry; its id. */
export async function recordAudit(db: DbOrTx, e: NewAuditEntry): Promise<string> {
  const id = `aud_${auditId()}`;
  await db.insert(auditLog).values({
    id,
    actor: e.actor,
    action: e.action,
    target: e.target,
    reason: e.reason ?? null,
    data: e.data ?? null,
    ...(e.at ? { at: e.at } : {}),
  });
  return id;
}

export interface AuditQuery {
  limit: number;
  offset: number;
  actor?: string;
  target?: string;
}

/** A page of the log, newest first, with the total of the filter. */
export async function listAudit(db: Db, q: AuditQuery): Promise<{ total: number; entries: AuditRow[] }> {
  const where: SQL[] = [];
  if (q.actor !== undefined) where.push(eq(auditLog.actor, q.actor));
  if (q.target !== undefined) where.push(eq(auditLog.target, q.target));
  const filter = where.length ? and(...where) : undefined;
  const [totalRow] = await db.select({ n: count() }).from(auditLog).where(filter);
  const entries = await db
    .select()
    .from(auditLog)
    .where(filter)
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(q.limit)
    .offset(q.offset);
  return { total: totalRow?.n ?? 0, entries };
}
