import { env } from "../env";
import { ApiError } from "../errors";
import type { AccountRow } from "../db/schema";

// A suspended account's credentials (API keys, ID tokens, OAuth tokens, the session) are known
// but refused: 403 forbidden, with a hint naming the appeal form. Nothing of the account is deleted.

/** Throws 403 forbidden when the account is suspended; returns it otherwise. */
export function refuseSuspended<A extends Pick<AccountRow, "suspendedAt" | "suspendedReason"> | null>(account: A): A {
  if (account?.suspendedAt) {
    throw new ApiError("forbidden", `This account is suspended (${account.suspendedReason ?? "other"}).`, {
      hint: `Appeal with the report form at ${env().BASE_URL}/report (reason "appeal"); its drops answer 451 until the suspension ends.`,
    });
  }
  return account;
}
