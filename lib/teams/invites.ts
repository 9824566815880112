import { personOf } from "./acting";
import { createHmac, randomBytes } from "node:crypto";
import type { AppContext } from "../context";
import type { Env } from "../env";
import { withDb } from "../db/errors";
import { prefixedId } from "../ids";
import {
  countMembers,
  findInviteByHash,
  insertInvite,
  joinWithInvite,
  listUsableInvites,
  revokeInvite as revokeInviteRow,
  usable,
} from "../db/teams";
import { ApiError } from "../errors";
import { TEAM_INVITE_CODE_PATTERN } from "../patterns";
import { limits, TEAM_INVITE_SECONDS, type Plan } from "../plans";
import { inviteBodySchema, joinBodySchema } from "../schemas";
import { derivedKey } from "../secret";
import { actorOf, type LazyBody, requirePerson, refused, teamFor, type PersonCaller } from "./access";
import { can, grantAction } from "./roles";

// Invitations: POST/GET /teams/{team}/invites, DELETE /teams/{team}/invites/{id}, and
// POST /teams/join. A code is single use and good for TEAM_INVITE_SECONDS; only its keyed hash
// (HMAC-SHA256 under a key derived from the server secret) is stored, as a leaked table must not
// let anyone join.

/** The stored form of a code. */
function codeHash(code: string, e: Env): string {
  return createHmac("sha256", derivedKey("team-invite", e)).update(code).digest("hex");
}

/** Where a logged-in person accepts an invitation: the dashboard's join page (the code is URL-safe). */
function inviteUrl(ctx: AppContext, code: string): string {
  return `${ctx.env.BASE_URL}/dashboard/teams/join/${code}`;
}

/** Past the plan's seats: the 400 of the other per-plan counts. */
function seatsFull(plan: Plan): ApiError {
  const allowed = limits[plan].maxMembers;
  return new ApiError("invalid_request", `This team already has ${allowed} members, its plan's seats.`, {
    hint: "Remove a member first; pending invitations do not take a seat until they are used.",
    docs: "teams",
    details: { limit: "max_members", allowed, plan },
  });
}

// POST /teams/{team}/invites – a single-use code for a role (admins; owners for owner).
export async function createInvite(ctx: AppContext, caller: PersonCaller, slug: string, body: LazyBody) {
  const { team, role, plan } = await teamFor(ctx, caller, slug, "invites", "invite people");
  const parsed = inviteBodySchema.safeParse(await body());
  if (!parsed.success) throw ApiError.fromZod(parsed.error, "The body", { docs: "teams" });
  const { role: invited, email } = parsed.data;
  if (!can(role, grantAction(invited))) throw refused(role, "invite owners");
  const members = await withDb(() => countMembers(ctx.db, team.id));
  if (members >= limits[plan].maxMembers) throw seatsFull(plan);
  const now = new Date(ctx.now());
  const code = `ti_${randomBytes(32).toString("base64url")}`;
  const invite = {
    id: prefixedId("inv"),
    teamId: team.id,
    codeHash: codeHash(code, ctx.env),
    role: invited,
    email: email?.toLowerCase() ?? null,
    invitedBy: personOf(caller).id,
    createdAt: now,
    expiresAt: new Date(now.getTime() + TEAM_INVITE_SECONDS * 1000),
    usedAt: null,
    usedBy: null,
    revokedAt: null,
  };
  await withDb(() =>
    insertInvite(ctx.db, invite, {
      ...actorOf(ctx, caller),
      action: "member.invited",
      target: `invite:${invite.id}`,
      data: { role: invited, email: invite.email },
    }),
  );
  return { id: invite.id, code, url: inviteUrl(ctx, code), role: invited, expires_at: invite.expiresAt.toISOString() };
}

// GET /teams/{team}/invites – the invitations that can still be used.
export async function listInvites(ctx: AppContext, caller: PersonCaller, slug: string) {
  const { team } = await teamFor(ctx, caller, slug, "invites", "see invitations");
  const rows = await withDb(() => listUsableInvites(ctx.db, team.id, new Date(ctx.now())));
  return {
    invites: rows.map((i) => ({
      id: i.id,
      role: i.role,
      email: i.email,
      expires_at: i.expiresAt.toISOString(),
      created_at: i.createdAt.toISOString(),
    })),
  };
}

function gone(): ApiError {
  return new ApiError("gone", "This invitation was used, revoked or has expired.", {
    hint: "Ask an admin of the team for a new invitation.",
    docs: "teams",
  });
}

function noSuchInvite(): ApiError {
  return new ApiError("not_found", "No such invitation.", {
    hint: "Check the code (or id) you were given.",
    docs: "teams",
  });
}

// DELETE /teams/{team}/invites/{id} – revoke an invitation.
export async function revokeInvite(ctx: AppContext, caller: PersonCaller, slug: string, id: string) {
  const { team } = await teamFor(ctx, caller, slug, "invites", "revoke invitations");
  const outcome = await withDb(() =>
    revokeInviteRow(ctx.db, team.id, id, new Date(ctx.now()), {
      ...actorOf(ctx, caller),
      action: "invite.revoked",
      target: `invite:${id}`,
    }),
  );
  if (outcome === "missing") throw noSuchInvite();
  if (outcome === "gone") throw gone();
  return { revoked: id };
}

/** The invitation a code names, for the join page: its team and role, and whether it can be used. */
export async function peekInvite(ctx: AppContext, code: string) {
  if (!TEAM_INVITE_CODE_PATTERN.test(code)) return null;
  const found = await withDb(() => findInviteByHash(ctx.db, codeHash(code, ctx.env)));
  if (!found) return null;
  return {
    team: { slug: found.team.slug, name: found.team.name },
    role: found.invite.role,
    usable: usable(found.invite, new Date(ctx.now())),
  };
}

// POST /teams/join – the caller joins with the code's role.
export async function joinTeam(ctx: AppContext, caller: PersonCaller, body: LazyBody) {
  requirePerson(caller);
  const parsed = joinBodySchema.safeParse(await body());
  if (!parsed.success) throw ApiError.fromZod(parsed.error, "The body", { docs: "teams" });
  const { code } = parsed.data;
  if (!TEAM_INVITE_CODE_PATTERN.test(code)) throw noSuchInvite();
  const found = await withDb(() => findInviteByHash(ctx.db, codeHash(code, ctx.env)));
  if (!found) throw noSuchInvite();
  const now = new Date(ctx.now());
  const { invite, team, plan } = found;
  if (!usable(invite, now)) throw gone();
  const account = personOf(caller);
  if (invite.email !== null && !(account.emailVerified && account.email?.toLowerCase() === invite.email)) {
    throw new ApiError("forbidden", "This invitation is for another email address.", {
      hint: "Log in with the account whose verified email the invitation names.",
      docs: "teams",
    });
  }
  const outcome = await withDb(() =>
    joinWithInvite(ctx.db, invite.id, account.id, limits[plan].maxMembers, now, {
      ...actorOf(ctx, caller),
      action: "member.joined",
      target: `account:${account.id}`,
    }),
  );
  if (outcome === "gone") throw gone();
  if (outcome === "full") throw seatsFull(plan);
  if (outcome === "member") {
    throw new ApiError("conflict", "You are already a member of this team.", {
      hint: "The invitation stays usable for someone else.",
      docs: "teams",
    });
  }
  return { id: team.id, slug: team.slug, name: team.name, role: invite.role };
}
