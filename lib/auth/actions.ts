import { ApiError, toApiError } from "../errors";
import { getContext, type AppContext } from "../context";
import type { AccountRow } from "../db/schema";
import type { Caller } from "./caller";
import { sessionCaller, sessionPerson } from "./session";
import { guardAccountRoute } from "./guard";
import { refuseSuspendedCaller } from "./suspended";
import { checkGate, TEAM_ROUTE_GATES, type TeamRoute } from "../teams/gates";
import { noteActing } from "../teams/acting";
import { inActorScope } from "../log/actor-scope";

// Server actions of the dashboard run the same lib/ services as the API, as the session's
// account: the person, or the team picked in the "Acting as" switcher. Each action names the API
// route it does the work of, and its gate (lib/teams/gates.ts, the one REST and MCP ask) is asked
// of the person's role before anything runs when the session acts as a team. Failures come back
// as a plain result carrying the envelope's message and hint. Every action changes state, so the
// session is asked for a write: an action posted from a page of another origin is refused.

export type ActionResult<T = undefined> =
  { ok: true; data: T } | { ok: false; error: string; code: string; hint?: string; upgrade_url?: string };

type Run<T> = (ctx: AppContext, caller: Caller & { account: AccountRow }) => Promise<T>;

/** Runs `fn` as the acting account, once the acting role (when a team) passes `route`'s gate. */
export function runAsSession<T>(route: TeamRoute, fn: Run<T>): Promise<ActionResult<T>> {
  return run(() => sessionCaller("write"), route, fn);
}

/** Runs `fn` as the person logged in, whatever they act as (teams, connections, devices). */
export function runAsPerson<T>(fn: Run<T>): Promise<ActionResult<T>> {
  return run(() => sessionPerson("write"), null, fn);
}

async function run<T>(
  who: () => Promise<(Caller & { account: AccountRow }) | null>,
  route: TeamRoute | null,
  fn: Run<T>,
): Promise<ActionResult<T>> {
  return inActorScope(() => runScoped(who, route, fn));
}

async function runScoped<T>(
  who: () => Promise<(Caller & { account: AccountRow }) | null>,
  route: TeamRoute | null,
  fn: Run<T>,
): Promise<ActionResult<T>> {
  try {
    const caller = await who();
    if (!caller) throw new ApiError("auth_required", "Your session has ended.", { hint: "Log in again." });
    refuseSuspendedCaller(caller);
    if (route) checkGate(caller, TEAM_ROUTE_GATES[route]);
    // The changes it records name the person and enter the team's audit log (lib/db/events.ts).
    if (caller.actor) noteActing(caller);
    const ctx = await getContext();
    await guardAccountRoute(ctx, caller);
    return { ok: true, data: await fn(ctx, caller) };
  } catch (err) {
    const e = toApiError(err);
    const env = e.envelope();
    return { ok: false, error: env.error, code: env.code, hint: env.hint, upgrade_url: env.upgrade_url };
  }
}
