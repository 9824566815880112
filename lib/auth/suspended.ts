import { appealUrl } from "../safety/disabled";
import { ApiError } from "../errors";
import type { AccountRow } from "../db/schema";
import type { Caller } from "./caller-types";

// A suspended account's credentials (API keys, ID tokens, OAuth tokens, the session) are known
// but refused: 403 forbidden, with a hint naming the appeal form. Nothing of the account is deleted.

type Suspendable = Pick<AccountRow, "suspendedAt" | "suspendedReason">;

/**
 * What a suspended account is told, by an error or on its dashboard: `whose` names it ("This
 * account", "Your account", "The team Acme"). Null when it is not suspended.
 */
export function suspensionNotice(account: Suspendable | null, whose = "This account") {
  if (!account?.suspendedAt) return null;
  return {
    message: `${whose} is suspended (${account.suspendedReason ?? "other"}).`,
    hint: `Appeal with the report form at ${appealUrl()}; its drops answer 451 until the suspension ends.`,
  };
}

/** Throws 403 forbidden when the account is suspended; returns it otherwise. */
export function refuseSuspended<A extends Suspendable | null>(account: A): A {
  const notice = suspensionNotice(account);
  if (notice) throw new ApiError("forbidden", notice.message, { hint: notice.hint });
  return account;
}

/**
 * Refuses a caller whose person or account is suspended. Acting as a team, both count: a
 * suspended person's team credentials stop with the person, and a suspended team stops every
 * member's credentials acting for it (the person's own go on).
 */
export function refuseSuspendedCaller(caller: Pick<Caller, "actor" | "account">): void {
  if (caller.actor) refuseSuspended(caller.actor);
  refuseSuspended(caller.account);
}
