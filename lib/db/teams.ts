import { and, asc, count, desc, eq, gt, inArray, isNull } from "drizzle-orm";
import type { Db } from "./client";
import { signOutMembersDrops } from "./access";
import { recordTeamAudit, type NewTeamAudit } from "./team-audit";
import {
  accounts,
  type AccountRow,
  apiKeys,
  type ApiKeyRow,
  teamAudit,
  teamInvites,
  teamMembers,
  teams,
  type TeamAuditRow,
  type TeamInviteRow,
  type TeamRow,
} from "./schema";
import type { Tx } from "./versions";
import type { TeamRole } from "../schemas/teams";

// Named queries of teams: the team, its members, invitations and audit log. Changes to members
// run under the team row's lock, so two requests cannot both take the last seat or both remove
// one of the last two owners; each change and its audit entry commit together.

/** Whether the slug is some account's vanity sub (the two share one namespace). */
export async function isVanitySub(db: Db | Tx, slug: string): Promise<boolean> {
  const [row] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.vanitySub, slug)).limit(1);
  return row !== undefined;
}

/** Whether a team has the slug. */
export async function isTeamSlug(db: Db, slug: string): Promise<boolean> {
  const [row] = await db.select({ id: teams.id }).from(teams).where(eq(teams.slug, slug)).limit(1);
  return row !== undefined;
}

/**
 * Creates a team with its creator as first owner and billing owner; false when the slug is a
 * vanity sub. A slug another team holds throws a unique violation.
 */
/** The id of the account a team acts as (one per team, made with it). */
export function teamAccountId(teamId: string): string {
  return `acc_${teamId.replace(/^team_/, "tm")}`;
}

/**
 * Creates a team, the account it acts as (on its billing owner's plan), its first owner and the
 * audit entry, together; false when the slug is a vanity sub already.
 */
export async function insertTeam(
  db: Db,
  team: Omit<TeamRow, "accountId">,
  plan: AccountRow["plan"],
  audit: Omit<NewTeamAudit, "teamId">,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    if (await isVanitySub(tx, team.slug)) return false;
    const accountId = teamAccountId(team.id);
    await tx
      .insert(accounts)
      .values({ id: accountId, issuer: "team", subject: team.id, plan, createdAt: team.createdAt });
    await tx.insert(teams).values({ ...team, accountId });
    await tx
      .insert(teamMembers)
      .values({ teamId: team.id, accountId: team.billingOwnerId!, role: "owner", joinedAt: team.createdAt });
    await recordTeamAudit(tx, { ...audit, teamId: team.id });
    return true;
  });
}

/** The teams a person is a member of, with their role, by slug. */
export async function listTeamsOf(db: Db, accountId: string) {
  return db
    .select({ id: teams.id, slug: teams.slug, name: teams.name, role: teamMembers.role })
    .from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .where(eq(teamMembers.accountId, accountId))
    .orderBy(asc(teams.slug));
}

/** A team by slug with the person's role in it (null when not a member) and the team's plan. */
export async function findTeamFor(db: Db, slug: string, accountId: string) {
  const [row] = await db
    .select({ team: teams, role: teamMembers.role, plan: accounts.plan })
    .from(teams)
    .leftJoin(teamMembers, and(eq(teamMembers.teamId, teams.id), eq(teamMembers.accountId, accountId)))
    .leftJoin(accounts, eq(accounts.id, teams.billingOwnerId))
    .where(eq(teams.slug, slug))
    .limit(1);
  return row ? { team: row.team, role: row.role, plan: row.plan ?? "free" } : undefined;
}

export async function listMembers(db: Db, teamId: string) {
  return db
    .select({
      accountId: teamMembers.accountId,
      email: accounts.email,
      role: teamMembers.role,
      joinedAt: teamMembers.joinedAt,
    })
    .from(teamMembers)
    .innerJoin(accounts, eq(accounts.id, teamMembers.accountId))
    .where(eq(teamMembers.teamId, teamId))
    .orderBy(asc(teamMembers.joinedAt), asc(teamMembers.accountId));
}

export async function countMembers(db: Db | Tx, teamId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(teamMembers).where(eq(teamMembers.teamId, teamId));
  return row?.n ?? 0;
}

async function lockTeam(tx: Tx, teamId: string): Promise<boolean> {
  const rows = await tx.select({ id: teams.id }).from(teams).where(eq(teams.id, teamId)).for("update");
  return rows.length > 0;
}

/** A person's role in a team now; undefined when not a member. */
export async function findMemberRole(db: Db, teamId: string, accountId: string): Promise<TeamRole | undefined> {
  return memberRole(db, teamId, accountId);
}

async function memberRole(tx: Db | Tx, teamId: string, accountId: string): Promise<TeamRole | undefined> {
  const [row] = await tx
    .select({ role: teamMembers.role })
    .from(teamMembers)
    .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.accountId, accountId)));
  return row?.role;
}

async function countOwners(tx: Tx, teamId: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(teamMembers)
    .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.role, "owner")));
  return row?.n ?? 0;
}

/** What a change of members came to: done (with the role before), or why not. */
export type MemberChange =
  | { ok: true; before: TeamRole; signedOut: { id: string; slug: string }[] }
  | { ok: false; reason: "not_member" | "last_owner" | "refused"; before?: TeamRole };

/**
 * Changes a member's role, or removes the member (role null), under the team's lock:
 * `allowed(actor, before)` decides with the roles the acting person (audit.actorId) and the
 * member hold now, not when the request began (only owners touch owners), and the last owner
 * is kept.
 */
export async function changeMember(
  db: Db,
  teamId: string,
  accountId: string,
  role: TeamRole | null,
  allowed: (actor: TeamRole | undefined, before: TeamRole) => boolean,
  audit: Omit<NewTeamAudit, "teamId" | "data">,
): Promise<MemberChange> {
  return db.transaction(async (tx) => {
    if (!(await lockTeam(tx, teamId))) return { ok: false, reason: "not_member" };
    const before = await memberRole(tx, teamId, accountId);
    if (!before) return { ok: false, reason: "not_member" };
    const actor = await memberRole(tx, teamId, audit.actorId);
    if (!allowed(actor, before)) return { ok: false, reason: "refused", before };
    if (before === "owner" && role !== "owner" && (await countOwners(tx, teamId)) <= 1)
      return { ok: false, reason: "last_owner", before };
    const where = and(eq(teamMembers.teamId, teamId), eq(teamMembers.accountId, accountId));
    if (role === null) {
      await tx.delete(teamMembers).where(where);
      // The member's keys for the team stop at once (a team key re-reads the role at every use too).
      await tx
        .update(apiKeys)
        .set({ revokedAt: audit.at })
        .where(and(eq(apiKeys.teamId, teamId), eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)));
    } else await tx.update(teamMembers).set({ role }).where(where);
    await recordTeamAudit(tx, {
      ...audit,
      teamId,
      data: role === null ? { role: before } : { from: before, to: role },
    });
    // Every visitor of the team's members-only drops signs in again, as a member now or not at all.
    return { ok: true, before, signedOut: await signOutMembersDrops(tx, teamId) };
  });
}

export async function insertInvite(db: Db, invite: TeamInviteRow, audit: Omit<NewTeamAudit, "teamId">): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.insert(teamInvites).values(invite);
    await recordTeamAudit(tx, { ...audit, teamId: invite.teamId });
  });
}

/** A team's invitations that can still be used, newest first. */
export async function listUsableInvites(db: Db, teamId: string, now: Date): Promise<TeamInviteRow[]> {
  return db
    .select()
    .from(teamInvites)
    .where(
      and(
        eq(teamInvites.teamId, teamId),
        isNull(teamInvites.usedAt),
        isNull(teamInvites.revokedAt),
        gt(teamInvites.expiresAt, now),
      ),
    )
    .orderBy(desc(teamInvites.createdAt), desc(teamInvites.id));
}

/** Whether an invitation is still usable at `now`. */
export function usable(invite: TeamInviteRow, now: Date): boolean {
  return invite.usedAt === null && invite.revokedAt === null && invite.expiresAt > now;
}

/** Revokes a usable invitation of the team: done, gone (used, revoked or expired) or missing. */
export async function revokeInvite(
  db: Db,
  teamId: string,
  id: string,
  now: Date,
  audit: Omit<NewTeamAudit, "teamId">,
): Promise<"revoked" | "gone" | "missing"> {
  return db.transaction(async (tx) => {
    const [invite] = await tx
      .select()
      .from(teamInvites)
      .where(and(eq(teamInvites.id, id), eq(teamInvites.teamId, teamId)))
      .for("update");
    if (!invite) return "missing";
    if (!usable(invite, now)) return "gone";
    await tx.update(teamInvites).set({ revokedAt: now }).where(eq(teamInvites.id, id));
    await recordTeamAudit(tx, { ...audit, teamId });
    return "revoked";
  });
}

export async function findInviteByHash(db: Db, codeHash: string) {
  const [row] = await db
    .select({ invite: teamInvites, team: teams, plan: accounts.plan })
    .from(teamInvites)
    .innerJoin(teams, eq(teams.id, teamInvites.teamId))
    .leftJoin(accounts, eq(accounts.id, teams.billingOwnerId))
    .where(eq(teamInvites.codeHash, codeHash))
    .limit(1);
  return row ? { ...row, plan: row.plan ?? "free" } : undefined;
}

export type JoinOutcome = "joined" | "gone" | "member" | "full";

/**
 * Uses an invitation: under the team's lock, the invitation must still be usable, the person not
 * yet a member and a seat free (`seats`); then it is used and the person joins with its role.
 */
export async function joinWithInvite(
  db: Db,
  inviteId: string,
  accountId: string,
  seats: number,
  now: Date,
  audit: Omit<NewTeamAudit, "teamId">,
): Promise<JoinOutcome> {
  return db.transaction(async (tx) => {
    const [first] = await tx.select().from(teamInvites).where(eq(teamInvites.id, inviteId));
    if (!first || !(await lockTeam(tx, first.teamId))) return "gone";
    const [invite] = await tx.select().from(teamInvites).where(eq(teamInvites.id, inviteId)).for("update");
    if (!invite || !usable(invite, now)) return "gone";
    if (await memberRole(tx, invite.teamId, accountId)) return "member";
    if ((await countMembers(tx, invite.teamId)) >= seats) return "full";
    await tx.update(teamInvites).set({ usedAt: now, usedBy: accountId }).where(eq(teamInvites.id, inviteId));
    await tx.insert(teamMembers).values({ teamId: invite.teamId, accountId, role: invite.role, joinedAt: now });
    await recordTeamAudit(tx, { ...audit, teamId: invite.teamId, data: { role: invite.role, invite: invite.id } });
    return "joined";
  });
}

/**
 * Deletes a team with its members, invitations and audit log, and the account it acts as with
 * everything that account holds (their rows cascade; the caller purges stored bytes first).
 */
export async function deleteTeamRow(db: Db, teamId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx.delete(teams).where(eq(teams.id, teamId)).returning({ accountId: teams.accountId });
    const [row] = rows;
    if (!row) return false;
    await tx.delete(accounts).where(and(eq(accounts.id, row.accountId), eq(accounts.issuer, "team")));
    return true;
  });
}

/** The team an account id acts for, when it is a team's account. */
export async function findTeamByAccount(db: Db | Tx, accountId: string): Promise<TeamRow | undefined> {
  const [row] = await db.select().from(teams).where(eq(teams.accountId, accountId)).limit(1);
  return row;
}

/** Keeps the plan of the teams a person is billing owner of in step with the person's. */
export async function syncTeamPlans(tx: Db | Tx, billingOwnerId: string, plan: AccountRow["plan"]): Promise<void> {
  const owned = tx.select({ id: teams.accountId }).from(teams).where(eq(teams.billingOwnerId, billingOwnerId));
  await tx.update(accounts).set({ plan }).where(inArray(accounts.id, owned));
}

/** A page of a team's audit log, newest first, with its total. */
export async function listTeamAudit(
  db: Db,
  teamId: string,
  limit: number,
  offset: number,
): Promise<{ total: number; entries: TeamAuditRow[] }> {
  const [totalRow] = await db.select({ n: count() }).from(teamAudit).where(eq(teamAudit.teamId, teamId));
  const entries = await db
    .select()
    .from(teamAudit)
    .where(eq(teamAudit.teamId, teamId))
    .orderBy(desc(teamAudit.at), desc(teamAudit.id))
    .limit(limit)
    .offset(offset);
  return { total: totalRow?.n ?? 0, entries };
}

/** A team's live keys, every member's, newest first. */
export async function listTeamKeys(db: Db, teamId: string): Promise<ApiKeyRow[]> {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.teamId, teamId), isNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.createdAt));
}

/** Revokes a live key of the team (of anyone's, or only of `accountId` when given); false when none. */
export async function revokeTeamKey(
  db: Db,
  teamId: string,
  keyId: string,
  accountId: string | null,
  audit: Omit<NewTeamAudit, "teamId">,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(apiKeys)
      .set({ revokedAt: audit.at })
      .where(
        and(
          eq(apiKeys.id, keyId),
          eq(apiKeys.teamId, teamId),
          isNull(apiKeys.revokedAt),
          accountId === null ? undefined : eq(apiKeys.accountId, accountId),
        ),
      )
      .returning({ id: apiKeys.id });
    if (rows.length === 0) return false;
    await recordTeamAudit(tx, { ...audit, teamId });
    return true;
  });
}
