import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "./client";
import { accounts, billingEvents, type AccountRow } from "./schema";
import { syncTeamPlans } from "./teams";

// Named queries of billing: the Stripe customer of an account, and applying a webhook event
// exactly once, in order, under a row lock.

export type BillingPatch = Partial<
  Pick<
    AccountRow,
    "plan" | "stripeCustomerId" | "stripeSubscriptionId" | "subscriptionStatus" | "currentPeriodEnd" | "cancelAt"
  >
>;

/**
 * Stores the account's Stripe customer unless it already has one; returns the customer id the
 * account ends up with (the earlier one when two requests raced).
 */
export async function linkCustomer(db: Db, accountId: string, customerId: string): Promise<string | null> {
  const [updated] = await db
    .update(accounts)
    .set({ stripeCustomerId: customerId })
    .where(and(eq(accounts.id, accountId), isNull(accounts.stripeCustomerId)))
    .returning({ customer: accounts.stripeCustomerId });
  if (updated) return updated.customer;
  const [row] = await db
    .select({ customer: accounts.stripeCustomerId })
    .from(accounts)
    .where(eq(accounts.id, accountId))
    .limit(1);
  return row?.customer ?? null;
}

/** Whether a webhook event was already applied (or is being applied). */
export async function eventSeen(db: Db, eventId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: billingEvents.id })
    .from(billingEvents)
    .where(eq(billingEvents.id, eventId))
    .limit(1);
  return row !== undefined;
}

export interface EventRef {
  id: string;
  type: string;
  /** When Stripe created the event. */
  created: Date;
}

/** Which account an event concerns: by our id (client_reference_id, metadata), else by Stripe customer. */
export interface AccountRef {
  accountId?: string | null;
  customerId?: string | null;
}

/**
 * What an event does to a locked account: a patch to apply (`ordered`: it is subject to the
 * newest-event-wins rule and advances billing_event_at), or nothing.
 */
export type Decision = { patch: BillingPatch; ordered: boolean } | null;

export type ApplyOutcome = "applied" | "duplicate" | "stale" | "no_account" | "no_change";

/**
 * Applies one webhook event: its id is recorded first (a replay stops there), the account row is
 * locked, and an ordered patch older than the newest event already applied is dropped, so an
 * out-of-order event cannot overwrite newer state. All in one transaction: a failure records
 * nothing and Stripe's retry starts afresh.
 */
export async function applyBillingEvent(
  db: Db,
  event: EventRef,
  ref: AccountRef,
  decide: (account: AccountRow) => Decision,
): Promise<ApplyOutcome> {
  return db.transaction(async (tx): Promise<ApplyOutcome> => {
    const inserted = await tx
      .insert(billingEvents)
      .values({ id: event.id, type: event.type })
      .onConflictDoNothing()
      .returning({ id: billingEvents.id });
    if (inserted.length === 0) return "duplicate";
    let account: AccountRow | undefined;
    if (ref.accountId) [account] = await tx.select().from(accounts).where(eq(accounts.id, ref.accountId)).for("update");
    if (!account && ref.customerId)
      [account] = await tx.select().from(accounts).where(eq(accounts.stripeCustomerId, ref.customerId)).for("update");
    if (!account) return "no_account";
    const decision = decide(account);
    if (!decision) return "no_change";
    const patch: BillingPatch & { billingEventAt?: Date } = { ...decision.patch };
    if (decision.ordered) {
      if (account.billingEventAt && event.created.getTime() < account.billingEventAt.getTime()) {
        // Out of order: only fill in a missing customer link, never older subscription state.
        if (patch.stripeCustomerId && !account.stripeCustomerId) {
          await tx
            .update(accounts)
            .set({ stripeCustomerId: patch.stripeCustomerId })
            .where(eq(accounts.id, account.id));
        }
        return "stale";
      }
      patch.billingEventAt = event.created;
    }
    if (patch.stripeCustomerId && account.stripeCustomerId) delete patch.stripeCustomerId;
    if (Object.keys(patch).length === 0) return "no_change";
    await tx.update(accounts).set(patch).where(eq(accounts.id, account.id));
    if (patch.plan && patch.plan !== account.plan) await syncTeamPlans(tx, account.id, patch.plan);
    return "applied";
  });
}
