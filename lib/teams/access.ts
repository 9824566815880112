import type { AppContext } from "../context";
import type { Caller } from "../auth/caller";
import type { AccountRow, TeamRow } from "../db/schema";
import { withDb } from "../db/errors";
import { findTeamFor, type NewTeamAudit } from "../db/teams";
import { ApiError } from "../errors";
import { readJson } from "../http";
import { z } from "zod";
import { VANITY_PATTERN } from "../patterns";
import type { Plan } from "../plans";
import type { TeamRole } from "../schemas";
import { can, type TeamAction } from "./roles";

// Who may act on a team: the one gate every /teams/{team} route passes. A person who is not a
// member learns nothing of the team (404, as for a drop of another account); a member whose
// role may not take the action gets 403 before anything else is looked at.

export type PersonCaller = Caller & { account: AccountRow };

export interface TeamAccess {
  team: TeamRow;
  role: TeamRole;
  /** The team's plan: its billing owner's. */
  plan: Plan;
}

export function noSuchTeam(): ApiError {
  return new ApiError("not_found", "No such team among yours.", {
    hint: "GET /teams lists the teams you are a member of, by slug.",
    docs: "teams",
  });
}

export function refused(role: TeamRole, what: string): ApiError {
  return new ApiError("forbidden", `Your role in this team (${role}) may not ${what}.`, {
    hint: "Ask an admin or owner of the team.",
    docs: "teams",
  });
}

/** The team of the path as the caller sees it, once the caller's role may take the action. */
export async function teamFor(
  ctx: AppContext,
  caller: PersonCaller,
  slug: string,
  action: TeamAction,
  what: string,
): Promise<TeamAccess> {
  if (!VANITY_PATTERN.test(slug)) throw noSuchTeam();
  const found = await withDb(() => findTeamFor(ctx.db, slug, caller.account.id));
  // A team key reaches its own team only (its role is its person's, read again here).
  if (!found?.role || (caller.team && caller.team.id !== found.team.id)) throw noSuchTeam();
  if (!can(found.role, action)) throw refused(found.role, what);
  return { team: found.team, role: found.role, plan: found.plan };
}

/** The acting person and credential of an audit entry. */
export function actorOf(
  ctx: AppContext,
  caller: PersonCaller,
): Omit<NewTeamAudit, "teamId" | "action" | "target" | "data"> {
  const [prefix = "", ...rest] = caller.credentialKey.split(":");
  const id = rest.join(":");
  const credentialKind = prefix === "key" ? "key" : prefix === "oauth" ? "oauth" : "session";
  // Acting as a team (a session's switcher, an OAuth grant), the person is the actor.
  const person = caller.actor ?? caller.account;
  return {
    actorId: person.id,
    actorEmail: person.email,
    credentialKind,
    credentialId: id || caller.credentialKey,
    at: new Date(ctx.now()),
  };
}

/** A request's JSON body, read only when asked: the caller's role is checked before it is. */
export type LazyBody = () => Promise<unknown>;

export function lazyBody(req: Request): LazyBody {
  return () => readJson(req, z.unknown());
}

/** Creating, listing and joining teams take the person's own credential, not a team key. */
export function requirePerson(caller: PersonCaller): void {
  if (caller.team) {
    throw new ApiError("forbidden", "Creating, listing and joining teams take your own credential, not a team key.", {
      hint: "Use your own key or log in.",
      docs: "teams",
    });
  }
}
