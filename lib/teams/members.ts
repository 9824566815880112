import { personOf } from "./acting";
import type { AppContext } from "../context";
import { withDb } from "../db/errors";
import { changeMember, listMembers, type MemberChange } from "../db/teams";
import { ApiError } from "../errors";
import { dropChanged } from "../serve/cache";
import { memberRoleBodySchema, type TeamRole } from "../schemas";
import { actorOf, type LazyBody, refused, teamFor, type PersonCaller } from "./access";
import { can, grantAction, seatAction } from "./roles";

// A team's members: GET /teams/{team}/members, PATCH (role) and DELETE (remove, or leave when it
// is the caller's own id) /teams/{team}/members/{account}.

// GET /teams/{team}/members – every member with their role.
export async function teamMembers(ctx: AppContext, caller: PersonCaller, slug: string) {
  const { team } = await teamFor(ctx, caller, slug, "read", "read the team");
  const rows = await withDb(() => listMembers(ctx.db, team.id));
  return {
    members: rows.map((m) => ({
      account_id: m.accountId,
      email: m.email,
      role: m.role,
      joined_at: m.joinedAt.toISOString(),
    })),
  };
}

function notMember(): ApiError {
  return new ApiError("not_found", "No such member of this team.", {
    hint: "GET /teams/{team}/members lists the members by account_id.",
    docs: "teams",
  });
}

function lastOwner(): ApiError {
  return new ApiError("conflict", "A team keeps at least one owner: the last owner cannot leave or be demoted.", {
    hint: "Make another member an owner first (PATCH /teams/{team}/members/{account} with role owner).",
    docs: "teams",
  });
}

/** The error of a change that did not happen. */
function failed(change: Exclude<MemberChange, { ok: true }>, role: TeamRole, what: string): ApiError {
  if (change.reason === "not_member") return notMember();
  if (change.reason === "last_owner") return lastOwner();
  return refused(role, what);
}

/** The members-only drops a change signed everyone out of take their new policy version here at once. */
async function forgetSignedOut(ctx: AppContext, drops: { id: string; slug: string }[]): Promise<void> {
  for (const d of drops) await dropChanged(ctx, d, "access");
}

// PATCH /teams/{team}/members/{account} – set a member's role.
export async function setMemberRole(
  ctx: AppContext,
  caller: PersonCaller,
  slug: string,
  accountId: string,
  body: LazyBody,
) {
  const { team, role } = await teamFor(ctx, caller, slug, "members", "change roles");
  const parsed = memberRoleBodySchema.safeParse(await body());
  if (!parsed.success) throw ApiError.fromZod(parsed.error, "The body", { docs: "teams" });
  const next = parsed.data.role;
  // Granting the owner role, or changing an admin's or an owner's, is the owners' (checked on
  // the roles held when the change is made).
  if (!can(role, grantAction(next))) throw refused(role, "grant the owner role");
  const allowed = (now: TeamRole | undefined, before: TeamRole) =>
    !!now && can(now, grantAction(next)) && can(now, seatAction(before));
  const change = await withDb(() =>
    changeMember(ctx.db, team.id, accountId, next, allowed, {
      ...actorOf(ctx, caller),
      action: "member.role_changed",
      target: `account:${accountId}`,
    }),
  );
  if (!change.ok) throw failed(change, role, "change an admin's or an owner's role");
  await forgetSignedOut(ctx, change.signedOut);
  return { account_id: accountId, role: next };
}

// DELETE /teams/{team}/members/{account} – remove a member; the caller's own id leaves.
export async function removeMember(ctx: AppContext, caller: PersonCaller, slug: string, accountId: string) {
  const self = accountId === personOf(caller).id;
  const { team, role } = await teamFor(ctx, caller, slug, self ? "read" : "members", "remove members");
  const change = await withDb(() =>
    changeMember(ctx.db, team.id, accountId, null, (now, before) => self || (!!now && can(now, seatAction(before))), {
      ...actorOf(ctx, caller),
      action: "member.removed",
      target: `account:${accountId}`,
    }),
  );
  if (!change.ok) throw failed(change, role, "remove an admin or an owner");
  await forgetSignedOut(ctx, change.signedOut);
  return { removed: accountId };
}
