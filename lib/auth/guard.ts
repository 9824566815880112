import type { AppContext } from "../context";
import { enforceLimit } from "../ratelimit/guard";
import type { Caller } from "./caller";

/** Account routes: the accountRoute budget of lib/ratelimit/policy.ts, per credential. */
export async function guardAccountRoute(ctx: AppContext, caller: Caller): Promise<void> {
  await enforceLimit(ctx, "accountRoute", caller.credentialKey);
}
