import { ApiError, toApiError } from "../errors";
import { getContext, type AppContext } from "../context";
import type { AccountRow } from "../db/schema";
import type { Caller } from "./caller";
import { sessionCaller } from "./session";
import { guardAccountRoute } from "./guard";
import { refuseSuspended } from "./suspended";

// Server actions of the dashboard run the same lib/ services as the API, as the session's
// account. Failures come back as a plain result carrying the envelope's message and hint.

export type ActionResult<T = undefined> =
  { ok: true; data: T } | { ok: false; error: string; code: string; hint?: string; upgrade_url?: string };

export async function runAsSession<T>(
  fn: (ctx: AppContext, caller: Caller & { account: AccountRow }) => Promise<T>,
): Promise<ActionResult<T>> {
  try {
    const caller = await sessionCaller();
    if (!caller) throw new ApiError("auth_required", "Your session has ended.", { hint: "Log in again." });
    refuseSuspended(caller.account);
    const ctx = await getContext();
    await guardAccountRoute(ctx, caller);
    return { ok: true, data: await fn(ctx, caller) };
  } catch (err) {
    const e = toApiError(err);
    const env = e.envelope();
    return { ok: false, error: env.error, code: env.code, hint: env.hint, upgrade_url: env.upgrade_url };
  }
}
