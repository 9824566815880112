import type { AppContext } from "../context";
import type { Caller } from "../auth/caller-types";
import type { AccountRow } from "../db/schema";
import { withDb } from "../db/errors";
import { findAccount } from "../db/accounts";
import { findMemberRole, findTeamByAccount } from "../db/teams";
import type { TeamRow } from "../db/schema";
import { noteTeamActor, type TeamActor } from "../log/actor-scope";

// Acting as a team (DESIGN "Teams"): a team key, a session that picked the team in the
// dashboard's switcher, or an MCP connection consented for the team acts as the team's account
// (every resource of rounds 1-3 belongs to an account id), with the person's role in the team as
// it is now and the person kept as the actor. A person who is no longer a member acts as nothing.

/** The caller acting as `team`: null when the person is not (or no longer) a member. */
export async function actAsTeam(
  ctx: AppContext,
  person: Caller & { account: AccountRow },
  team: Pick<TeamRow, "id" | "accountId">,
): Promise<(Caller & { account: AccountRow; actor: AccountRow }) | null> {
  const [role, account] = await withDb(() =>
    Promise.all([findMemberRole(ctx.db, team.id, person.account.id), findAccount(ctx.db, team.accountId)]),
  );
  if (!role || !account) return null;
  return { ...person, account, actor: person.account, team: { id: team.id, role } };
}

/** The kind and id of the credential a caller used (the team audit's `credential`). */
export function credentialOf(caller: Caller): TeamActor["credential"] {
  const [prefix = "", ...rest] = caller.credentialKey.split(":");
  const id = rest.join(":");
  const kind = prefix === "key" ? "key" : prefix === "oauth" ? "oauth" : "session";
  return { kind, id: id || caller.credentialKey };
}

/** The request acts as a team: the changes it records name the person (lib/log/actor-scope.ts). */
export function noteActing(caller: Caller): void {
  if (!caller.team || !caller.actor || !caller.account) return;
  noteTeamActor({
    teamId: caller.team.id,
    accountId: caller.account.id,
    id: caller.actor.id,
    email: caller.actor.email,
    credential: credentialOf(caller),
  });
}

/** The person behind a caller: the actor when acting as a team, else the account itself. */
export function personOf<C extends Caller & { account: AccountRow }>(caller: C): AccountRow {
  return caller.actor ?? caller.account;
}

/**
 * The person holding the team's role, as a team key's caller is (account: the person, team: the
 * team and role): what the key services take (a team's keys belong to their minting people).
 */
export function personCaller<C extends Caller & { account: AccountRow }>(caller: C): C {
  return { ...caller, account: personOf(caller) };
}

/** The slug of the team a caller acts as, or undefined when it acts as itself. */
export async function actingSlug(
  ctx: AppContext,
  caller: Caller & { account: AccountRow },
): Promise<string | undefined> {
  if (!caller.team) return undefined;
  return (await withDb(() => findTeamByAccount(ctx.db, caller.account.id)))?.slug;
}
