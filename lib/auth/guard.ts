import type { AppContext } from "../context";
import { enforceLimit } from "../ratelimit/guard";
import type { Caller } from "./caller";

/** Account routes: 120 requests per minute per credential. */
export const ACCOUNT_ROUTE_LIMIT = 120;
/** POST /keys: 5 per minute per account. */
export const KEY_MINT_LIMIT = 5;
/** POST /claim: 10 per minute per client IP. */
export const CLAIM_LIMIT = 10;

export async function guardAccountRoute(ctx: AppContext, caller: Caller): Promise<void> {
  await enforceLimit(ctx, `account:${caller.credentialKey}`, ACCOUNT_ROUTE_LIMIT, 60, "requests with this credential");
}
