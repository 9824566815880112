import { and, desc, eq, gt, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "./client";
import { dropViewers, shareLinks, signinTokens, type ShareLinkRow, type SigninTokenRow } from "./schema";

// Emails-only drops' queries (DESIGN "Sharing by identity"): the one-time sign-in tokens (their
// keyed hashes only) and the viewers who came.

/** Stores a sign-in token's row, clearing expired ones on the way. */
export async function insertSigninToken(db: Db, row: SigninTokenRow): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(signinTokens).where(lt(signinTokens.expiresAt, row.createdAt));
    await tx.insert(signinTokens).values(row);
  });
}

/**
 * Spends a sign-in token: deletes its row and answers it, in one statement, so of two requests
 * with the same link at most one gets it; undefined when there is none (never made, spent, cleared).
 */
export async function takeSigninToken(db: Db, tokenHash: string): Promise<SigninTokenRow | undefined> {
  const [row] = await db.delete(signinTokens).where(eq(signinTokens.tokenHash, tokenHash)).returning();
  return row;
}

/** An address opened its sign-in link: it is a viewer of the drop from now (first seen kept, last seen moved). */
export async function recordViewerSignIn(db: Db, dropId: string, email: string, now: Date): Promise<void> {
  await db
    .insert(dropViewers)
    .values({ dropId, email, firstSeen: now, lastSeen: now, views: 0 })
    .onConflictDoUpdate({ target: [dropViewers.dropId, dropViewers.email], set: { lastSeen: now } });
}

/** Adds views to viewers of a drop (what the counts counted as views), moving their last seen. */
export async function addViewerViews(
  db: Db,
  rows: { dropId: string; email: string; views: number }[],
  now: Date,
): Promise<void> {
  for (const r of rows)
    await db
      .insert(dropViewers)
      .values({ dropId: r.dropId, email: r.email, firstSeen: now, lastSeen: now, views: r.views })
      .onConflictDoUpdate({
        target: [dropViewers.dropId, dropViewers.email],
        set: { lastSeen: now, views: sql`${dropViewers.views} + ${r.views}` },
      });
}

/** The viewers of a drop seen since `since`, last seen first. */
export function listViewers(db: Db, dropId: string, since: Date) {
  return db
    .select({
      email: dropViewers.email,
      firstSeen: dropViewers.firstSeen,
      lastSeen: dropViewers.lastSeen,
      views: dropViewers.views,
    })
    .from(dropViewers)
    .where(and(eq(dropViewers.dropId, dropId), sql`${dropViewers.lastSeen} >= ${since}`))
    .orderBy(sql`${dropViewers.lastSeen} desc`, dropViewers.email);
}

/** Forgets viewers last seen before `before` (the cleanup job). */
export async function pruneViewers(db: Db, before: Date): Promise<void> {
  await db.delete(dropViewers).where(lt(dropViewers.lastSeen, before));
}

/** Stores a share link (its token's keyed hash only). */
export async function insertShareLink(db: Db, row: ShareLinkRow): Promise<void> {
  await db.insert(shareLinks).values(row);
}

/** A drop's share links that still work at `now`, newest first. */
export function listUsableShareLinks(db: Db, dropId: string, now: Date) {
  return db
    .select({ id: shareLinks.id, expiresAt: shareLinks.expiresAt, createdAt: shareLinks.createdAt })
    .from(shareLinks)
    .where(and(eq(shareLinks.dropId, dropId), isNull(shareLinks.revokedAt), gt(shareLinks.expiresAt, now)))
    .orderBy(desc(shareLinks.createdAt), shareLinks.id);
}

/** Revokes a drop's share link; false when it has none by that id (or it was revoked already). */
export async function revokeShareLink(db: Db, dropId: string, id: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(shareLinks)
    .set({ revokedAt: now })
    .where(and(eq(shareLinks.dropId, dropId), eq(shareLinks.id, id), isNull(shareLinks.revokedAt)))
    .returning({ id: shareLinks.id });
  return rows.length > 0;
}

/** The share link a token names, if it still works at `now`. */
export async function findUsableShareLink(
  db: Db,
  where: { tokenHash: string } | { id: string },
  now: Date,
): Promise<ShareLinkRow | undefined> {
  const [row] = await db
    .select()
    .from(shareLinks)
    .where(
      and(
        "id" in where ? eq(shareLinks.id, where.id) : eq(shareLinks.tokenHash, where.tokenHash),
        isNull(shareLinks.revokedAt),
        gt(shareLinks.expiresAt, now),
      ),
    )
    .limit(1);
  return row;
}
