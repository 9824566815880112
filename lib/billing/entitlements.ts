import type { AppContext } from "../context";
import type { AccountRow } from "../db/schema";
import type { Entitlements } from "../schemas";
import { stripeBilling } from "./stripe";
import { isLiveStatus } from "./subscription";

// GET /billing/me – what the account is entitled to, from its stored billing state. Works with
// or without Stripe configured (a self-hosted plan set by the admin command shows here too).
export function entitlements(ctx: AppContext, account: AccountRow): Entitlements {
  return {
    accountId: account.id,
    plan: account.plan,
    activeSubscription: isLiveStatus(account.subscriptionStatus),
    currentPeriodEnd: account.currentPeriodEnd?.toISOString() ?? null,
    cancelAt: account.cancelAt?.toISOString() ?? null,
    portalAvailable: stripeBilling(ctx.env) !== null && account.stripeCustomerId !== null,
  };
}
