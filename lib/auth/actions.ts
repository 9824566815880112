import { ApiError, toApiError } from "../errors";
import { getContext, type AppContext } from "../context";
import type { AccountRow } from "../db/schema";
import type { Caller } from "./caller";
import { sessionCaller, sessionPerson } from "./session";
import { guardAccountRoute } from "./guard";
import { refuseSuspended } from "./suspended";
import { can, type TeamAction } from "../teams/roles";
import { refused } from "../teams/access";
import { noteActing } from "../teams/acting";
import { inActorScope } from "../log/actor-scope";

// Server actions of the dashboard run the same lib/ services as the API, as the session's
// account: the person, or the team picked in the "Acting as" switcher. Each action names the
// class of what it does (lib/teams/roles.ts), asked of the person's role before anything runs
// when the session acts as a team. Failures come back as a plain result carrying the envelope's
// message and hint.

export type ActionResult<T = undefined> =
  { ok: true; data: T } | { ok: false; error: string; code: string; hint?: string; upgrade_url?: string };

type Run<T> = (ctx: AppContext, caller: Caller & { account: AccountRow }) => Promise<T>;

/** Runs `fn` as the acting account, once the acting role (when a team) may take `action`. */
export function runAsSession<T>(action: TeamAction, fn: Run<T>): Promise<ActionResult<T>> {
  return run(sessionCaller, action, fn);
}

/** Runs `fn` as the person logged in, whatever they act as (teams, connections, devices). */
export function runAsPerson<T>(fn: Run<T>): Promise<ActionResult<T>> {
  return run(sessionPerson, null, fn);
}

async function run<T>(
  who: () => Promise<(Caller & { account: AccountRow }) | null>,
  action: TeamAction | null,
  fn: Run<T>,
): Promise<ActionResult<T>> {
  return inActorScope(() => runScoped(who, action, fn));
}

async function runScoped<T>(
  who: () => Promise<(Caller & { account: AccountRow }) | null>,
  action: TeamAction | null,
  fn: Run<T>,
): Promise<ActionResult<T>> {
  try {
    const caller = await who();
    if (!caller) throw new ApiError("auth_required", "Your session has ended.", { hint: "Log in again." });
    refuseSuspended(caller.actor ?? caller.account);
    if (action && caller.team && !can(caller.team.role, action)) throw refused(caller.team.role, ACTION_WORDS[action]);
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

/** How a refusal names each class of action ("Your role in this team (viewer) may not …"). */
const ACTION_WORDS: Record<TeamAction, string> = {
  read: "read the team's drops",
  deploy: "deploy or change the team's drops",
  delete: "delete the team's drops",
  domains: "change the team's domains",
  webhooks: "change the team's webhooks",
  vanity: "change the team's vanity name",
  keys: "manage the team's keys",
  invites: "manage invitations",
  members: "change members",
  audit: "read the audit log",
  billing: "manage the team's billing",
  owners: "change owners",
  deleteTeam: "delete the team",
};
