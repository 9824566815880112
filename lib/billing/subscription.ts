import type Stripe from "stripe";
import type { Env } from "../env";
import type { AccountRow } from "../db/schema";
import type { Plan } from "../plans";
import { planForPrice, type PaidPlan } from "./stripe";
import type { Decision } from "../db/billing";

// How a Stripe subscription's state maps onto an account: pure functions, no I/O.

/** Statuses in which the subscription still exists and its plan is kept. */
const LIVE_STATUSES = new Set(["active", "trialing", "past_due"]);
/** Statuses that grant the subscription's plan. */
const GRANTING_STATUSES = new Set(["active", "trialing"]);
/** Statuses after which the account is back on free. `paused` (a trial ended without a payment method) grants nothing either. */
const ENDED_STATUSES = new Set(["canceled", "unpaid", "incomplete_expired", "paused"]);

export function isLiveStatus(status: string | null | undefined): boolean {
  return status !== null && status !== undefined && LIVE_STATUSES.has(status);
}

const seconds = (v: number | null | undefined): Date | null =>
  typeof v === "number" && v > 0 ? new Date(v * 1000) : null;

/** The paid plan a subscription's prices buy (team wins over pro); null when none is ours. */
export function planOfSubscription(e: Env, sub: Stripe.Subscription): PaidPlan | null {
  const found = sub.items.data.map((item) => planForPrice(e, item.price.id));
  return found.includes("team") ? "team" : found.includes("pro") ? "pro" : null;
}

/** End of the current period: on the items since API 2025-03-31, on the subscription before. */
export function periodEnd(sub: Stripe.Subscription): Date | null {
  const ends = sub.items.data.map((i) => (i as { current_period_end?: number }).current_period_end ?? 0);
  const legacy = (sub as unknown as { current_period_end?: number }).current_period_end ?? 0;
  return seconds(Math.max(legacy, ...ends));
}

/**
 * The change a subscription's state makes to an account. A subscription other than the account's
 * live one can take over only by being live itself: an old subscription ending never downgrades
 * an account that pays through a newer one.
 */
export function subscriptionDecision(
  e: Env,
  account: AccountRow,
  sub: Stripe.Subscription,
  customerId: string | null,
): Decision {
  const status = sub.status;
  const other = account.stripeSubscriptionId !== null && account.stripeSubscriptionId !== sub.id;
  if (other && isLiveStatus(account.subscriptionStatus) && !isLiveStatus(status)) return null;
  let plan: Plan = account.plan;
  if (GRANTING_STATUSES.has(status)) {
    const bought = planOfSubscription(e, sub);
    if (bought) plan = bought;
    else
      console.warn(
        `[billing] subscription ${sub.id} of account ${account.id} has no price this server sells (STRIPE_PRICE_PRO / STRIPE_PRICE_TEAM); plan left at ${plan}`,
      );
  } else if (ENDED_STATUSES.has(status)) {
    plan = "free";
  }
  // past_due keeps the plan while Stripe retries the payment; incomplete has not granted it yet.
  const end = periodEnd(sub);
  const cancelAt = seconds(sub.cancel_at) ?? (sub.cancel_at_period_end ? end : null);
  return {
    ordered: true,
    patch: {
      plan,
      stripeSubscriptionId: sub.id,
      subscriptionStatus: status,
      currentPeriodEnd: end,
      cancelAt: ENDED_STATUSES.has(status) ? null : cancelAt,
      ...(customerId ? { stripeCustomerId: customerId } : {}),
    },
  };
}
