import { and, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "./client";
import { recordEvent } from "./events";
import { drops, memberAccessTokens, shareLinks, teams, type DropRow, type MemberAccessTokenRow } from "./schema";
import type { Tx } from "./versions";

// A drop's access policy: its mode, its password's hash, and the version every unlock cookie
// names. Every change bumps the version in the same statement, so no cookie outlives a change.

export type DropAccess = Pick<
  DropRow,
  "id" | "accessMode" | "accessPasswordHash" | "accessPolicyVersion" | "accessAllow"
>;

/**
 * Sets an owned drop's access and bumps its policy version, in one statement, and records
 * drop.access_changed in the same transaction; undefined when the drop is gone or no longer the
 * owner's. One change keeps the version: an emails-only drop's new list (its viewers still on
 * the list stay signed in; the serve path checks every viewer's address against the list as it
 * is now). A change of mode revokes every share link of the drop in the same transaction.
 */
export async function setDropAccessRow(
  db: Db,
  dropId: string,
  ownerId: string,
  access:
    | { mode: "public"; passwordHash: null }
    | { mode: "password"; passwordHash: string }
    | { mode: "members"; passwordHash: null }
    | { mode: "emails"; passwordHash: null; allow: string[] },
  now: Date,
): Promise<DropAccess | undefined> {
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ mode: drops.accessMode })
      .from(drops)
      .where(and(eq(drops.id, dropId), eq(drops.ownerId, ownerId)))
      .for("update");
    if (!before) return undefined;
    const keep = before.mode === "emails" && access.mode === "emails";
    const [row] = await tx
      .update(drops)
      .set({
        accessMode: access.mode,
        accessPasswordHash: access.passwordHash,
        accessAllow: access.mode === "emails" ? access.allow : null,
        accessPolicyVersion: keep ? drops.accessPolicyVersion : sql`${drops.accessPolicyVersion} + 1`,
      })
      .where(and(eq(drops.id, dropId), eq(drops.ownerId, ownerId)))
      .returning({
        id: drops.id,
        slug: drops.slug,
        version: drops.liveVersion,
        accessMode: drops.accessMode,
        accessPasswordHash: drops.accessPasswordHash,
        accessPolicyVersion: drops.accessPolicyVersion,
        accessAllow: drops.accessAllow,
      });
    if (!row) return undefined;
    if (before.mode !== access.mode)
      await tx
        .update(shareLinks)
        .set({ revokedAt: now })
        .where(and(eq(shareLinks.dropId, dropId), isNull(shareLinks.revokedAt)));
    await recordEvent(tx, {
      accountId: ownerId,
      type: "drop.access_changed",
      data: { slug: row.slug, version: row.version, access: row.accessMode },
      now,
    });
    const { slug: _slug, version: _version, ...policy } = row;
    return policy;
  });
}

/** The current access policy of a drop (the unlock form checks against it, never a cached copy). */
export async function findDropAccess(db: Db, dropId: string): Promise<DropAccess | undefined> {
  const [row] = await db
    .select({
      id: drops.id,
      accessMode: drops.accessMode,
      accessPasswordHash: drops.accessPasswordHash,
      accessPolicyVersion: drops.accessPolicyVersion,
      accessAllow: drops.accessAllow,
    })
    .from(drops)
    .where(eq(drops.id, dropId))
    .limit(1);
  return row;
}

/**
 * Signs every visitor out of a team's members-only drops (a member removed or a role changed):
 * their policy version moves, in the caller's transaction, so every unlock cookie and every
 * token not yet used stops at once. The drops changed, for the serve path's cache.
 */
export async function signOutMembersDrops(tx: Db | Tx, teamId: string): Promise<{ id: string; slug: string }[]> {
  const owner = tx.select({ id: teams.accountId }).from(teams).where(eq(teams.id, teamId));
  return tx
    .update(drops)
    .set({ accessPolicyVersion: sql`${drops.accessPolicyVersion} + 1` })
    .where(and(inArray(drops.ownerId, owner), eq(drops.accessMode, "members")))
    .returning({ id: drops.id, slug: drops.slug });
}

/** Stores a members-only drop's one-time token (its keyed hash), clearing expired ones on the way. */
export async function insertMemberToken(db: Db, row: MemberAccessTokenRow): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(memberAccessTokens).where(lt(memberAccessTokens.expiresAt, row.createdAt));
    await tx.insert(memberAccessTokens).values(row);
  });
}

/**
 * Uses a token: deletes its row and answers it, in one statement, so of two requests with the
 * same token at most one gets it (whatever drop it is presented on: a token tried on another
 * drop is spent). Undefined when there is none (never made, used, or cleared).
 */
export async function takeMemberToken(db: Db, tokenHash: string): Promise<MemberAccessTokenRow | undefined> {
  const [row] = await db.delete(memberAccessTokens).where(eq(memberAccessTokens.tokenHash, tokenHash)).returning();
  return row;
}
