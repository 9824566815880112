import { and, asc, count, desc, eq, lte, sql } from "drizzle-orm";
import type { Db } from "./client";
import { recordTeamChange } from "./team-audit";
import {
  accounts,
  events,
  webhookAttempts,
  webhookDeliveries,
  webhooks,
  type EventRow,
  type WebhookAttemptRow,
  type WebhookRow,
} from "./schema";

// Named queries over webhooks, their queued deliveries and the delivery log.

/**
 * Inserts a webhook unless the account already has `max`; false then. Counted under the
 * account's row lock, so parallel creations cannot pass the cap.
 */
export async function insertWebhookCapped(db: Db, row: typeof webhooks.$inferInsert, max: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, row.accountId)).for("update");
    const [n] = await tx.select({ n: count() }).from(webhooks).where(eq(webhooks.accountId, row.accountId));
    if ((n?.n ?? 0) >= max) return false;
    await tx.insert(webhooks).values(row);
    await recordTeamChange(tx, row.accountId, "webhook.added", `webhook:${row.id}`);
    return true;
  });
}

export async function listAccountWebhooks(db: Db, accountId: string): Promise<WebhookRow[]> {
  return db
    .select()
    .from(webhooks)
    .where(eq(webhooks.accountId, accountId))
    .orderBy(asc(webhooks.createdAt), asc(webhooks.id));
}

export async function findAccountWebhook(db: Db, accountId: string, id: string): Promise<WebhookRow | undefined> {
  const [row] = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.accountId, accountId), eq(webhooks.id, id)))
    .limit(1);
  return row;
}

/** Deletes an account's webhook (its queue and log go with it); false when it has none with that id. */
export async function deleteAccountWebhook(db: Db, accountId: string, id: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .delete(webhooks)
      .where(and(eq(webhooks.accountId, accountId), eq(webhooks.id, id)))
      .returning({ id: webhooks.id });
    if (rows.length === 0) return false;
    await recordTeamChange(tx, accountId, "webhook.removed", `webhook:${id}`);
    return true;
  });
}

/** A webhook's latest attempts, newest first. */
export async function listWebhookAttempts(db: Db, webhookId: string, limit: number): Promise<WebhookAttemptRow[]> {
  return db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.webhookId, webhookId))
    .orderBy(desc(webhookAttempts.createdAt), desc(webhookAttempts.attempt))
    .limit(limit);
}

/** A delivery a worker has claimed: the attempt it is about to make. */
export interface ClaimedDelivery {
  webhook: Pick<WebhookRow, "id" | "url" | "secretSealed">;
  event: EventRow;
  /** This attempt's number (1 for the first). */
  attempt: number;
}

/**
 * Claims up to `limit` due deliveries for one attempt each: in one transaction, locks due rows
 * no other worker holds (FOR UPDATE SKIP LOCKED), counts the attempt and moves next_attempt_at
 * to `leaseUntil`, so no other worker (another instance, or this one's next tick) starts the
 * same attempt while this one runs; a worker that dies mid-attempt leaves the row due again
 * at the lease's end.
 */
/** Deliveries waiting to be attempted (due or not): webhook_outbox_pending. */
export async function countPendingDeliveries(db: Db): Promise<number> {
  const [row] = await db.select({ n: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.state, "pending"));
  return row?.n ?? 0;
}

export async function claimDueDeliveries(
  db: Db,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<ClaimedDelivery[]> {
  return db.transaction(async (tx) => {
    const due = await tx
      .select({
        webhookId: webhookDeliveries.webhookId,
        eventId: webhookDeliveries.eventId,
        attempts: webhookDeliveries.attempts,
      })
      .from(webhookDeliveries)
      .where(
        and(
          eq(webhookDeliveries.state, "pending"),
          lte(webhookDeliveries.nextAttemptAt, now),
          // A suspended account's deliveries wait (pending) until it is unsuspended.
          sql`not exists (select 1 from ${webhooks} w join ${accounts} a on a.id = w.account_id where w.id = ${webhookDeliveries.webhookId} and a.suspended_at is not null)`,
        ),
      )
      .orderBy(asc(webhookDeliveries.nextAttemptAt))
      .limit(limit)
      .for("update", { skipLocked: true });
    const out: ClaimedDelivery[] = [];
    for (const d of due) {
      await tx
        .update(webhookDeliveries)
        .set({ attempts: sql`${webhookDeliveries.attempts} + 1`, nextAttemptAt: leaseUntil })
        .where(and(eq(webhookDeliveries.webhookId, d.webhookId), eq(webhookDeliveries.eventId, d.eventId)));
      const [row] = await tx
        .select({ webhook: { id: webhooks.id, url: webhooks.url, secretSealed: webhooks.secretSealed }, event: events })
        .from(webhooks)
        .innerJoin(events, eq(events.id, d.eventId))
        .where(eq(webhooks.id, d.webhookId))
        .limit(1);
      if (row) out.push({ ...row, attempt: d.attempts + 1 });
    }
    return out;
  });
}

/**
 * Records an attempt's outcome: the log row, and the delivery delivered, due again at `retryAt`,
 * or failed for good (retryAt null). Only the attempt that holds the claim writes the state.
 */
export async function finishAttempt(
  db: Db,
  d: {
    webhookId: string;
    eventId: string;
    type: string;
    attempt: number;
    statusCode: number | null;
    error: string | null;
    at: Date;
    logId: string;
  },
  outcome: { delivered: true } | { delivered: false; retryAt: Date | null },
): Promise<void> {
  await db.transaction(async (tx) => {
    const state = outcome.delivered ? "delivered" : outcome.retryAt ? "pending" : "failed";
    const updated = await tx
      .update(webhookDeliveries)
      .set({ state, ...(!outcome.delivered && outcome.retryAt ? { nextAttemptAt: outcome.retryAt } : {}) })
      .where(
        and(
          eq(webhookDeliveries.webhookId, d.webhookId),
          eq(webhookDeliveries.eventId, d.eventId),
          eq(webhookDeliveries.attempts, d.attempt),
          eq(webhookDeliveries.state, "pending"),
        ),
      )
      .returning({ id: webhookDeliveries.webhookId });
    // The webhook was deleted meanwhile (its rows went with it): nothing to log.
    if (updated.length === 0) return;
    await tx.insert(webhookAttempts).values({
      id: d.logId,
      webhookId: d.webhookId,
      eventId: d.eventId,
      type: d.type,
      attempt: d.attempt,
      statusCode: d.statusCode,
      error: d.error,
      createdAt: d.at,
    });
  });
}
