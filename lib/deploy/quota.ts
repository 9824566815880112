import type { AppContext } from "../context";
import type { Caller } from "../auth/caller";
import { withDb } from "../db/errors";
import { countOwnedDrops } from "../db/queries";
import { ApiError } from "../errors";
import { isPaid, limits, type Tier } from "../plans";

// The plan a deploy is counted under, and the cap on drops per account (checked early here, and
// again under the account's row lock by the insert or claim).

export function tierOf(caller: Pick<Caller, "account">): Tier {
  return caller.account ? caller.account.plan : "anonymous";
}

/** The most drops the caller's account may hold; null: no cap (or no account). */
export function maxOwnedDrops(caller: Pick<Caller, "account">): number | null {
  return caller.account ? limits[tierOf(caller)].maxDrops : null;
}

/**
 * Refuses a new drop (deployed or claimed) past the plan's maximum drops per account. This is
 * the early check, before bytes are stored; the insert or claim checks again under the
 * account's row lock, which is what makes the cap hold under parallel requests.
 */
export async function checkDropQuota(ctx: AppContext, caller: Pick<Caller, "account">): Promise<void> {
  const account = caller.account;
  const max = maxOwnedDrops(caller);
  if (!account || max === null) return;
  const owned = await withDb(() => countOwnedDrops(ctx.db, account.id));
  if (owned >= max) throw dropQuotaError(caller, owned, max);
}

export function dropQuotaError(caller: Pick<Caller, "account">, owned: number, max: number): ApiError {
  const tier = tierOf(caller);
  const details = { limit: "max_drops", allowed: max, plan: tier } as const;
  return isPaid(tier)
    ? new ApiError("invalid_request", `This account has ${owned} drops, the most its plan allows (${max}).`, {
        hint: "Delete drops you no longer need.",
        docs: "limits",
        details,
      })
    : new ApiError("subscription_required", `Free accounts keep at most ${max} drops.`, {
        hint: "Delete drops you no longer need, or upgrade for more.",
        upgrade: true,
        docs: "limits",
        details,
      });
}
