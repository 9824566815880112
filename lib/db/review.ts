import { and, asc, count, desc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "./client";
import { recordEvent } from "./events";
import {
  comments,
  drops,
  dropVersions,
  reviewLinks,
  type CommentRow,
  type DropRow,
  type ReviewLinkRow,
} from "./schema";

// Review links and comments (lib/review). A thread's write runs under its drop's row lock, so
// the open-thread cap holds against parallel writes; its event (comment.created,
// comment.resolved) is recorded in the same transaction.

export async function insertReviewLink(db: Db, row: typeof reviewLinks.$inferInsert): Promise<ReviewLinkRow> {
  const [out] = await db.insert(reviewLinks).values(row).returning();
  return out!;
}

/** A drop's usable review links (not revoked, not expired), newest first. */
export function listReviewLinks(db: Db, dropId: string, now: Date): Promise<ReviewLinkRow[]> {
  return db
    .select()
    .from(reviewLinks)
    .where(and(eq(reviewLinks.dropId, dropId), isNull(reviewLinks.revokedAt), gt(reviewLinks.expiresAt, now)))
    .orderBy(desc(reviewLinks.createdAt), desc(reviewLinks.id));
}

/** Revokes a usable link of the drop; false when there is none by that id. */
export async function revokeReviewLink(db: Db, dropId: string, id: string, now: Date): Promise<boolean> {
  const gone = await db
    .update(reviewLinks)
    .set({ revokedAt: now })
    .where(
      and(
        eq(reviewLinks.id, id),
        eq(reviewLinks.dropId, dropId),
        isNull(reviewLinks.revokedAt),
        gt(reviewLinks.expiresAt, now),
      ),
    )
    .returning({ id: reviewLinks.id });
  return gone.length > 0;
}

/** A usable link by its token's hash, with its drop; undefined when unknown, revoked or expired. */
export async function findUsableReviewLink(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<{ link: ReviewLinkRow; drop: DropRow } | undefined> {
  const [row] = await db
    .select({ link: reviewLinks, drop: drops })
    .from(reviewLinks)
    .innerJoin(drops, eq(drops.id, reviewLinks.dropId))
    .where(and(eq(reviewLinks.tokenHash, tokenHash), isNull(reviewLinks.revokedAt), gt(reviewLinks.expiresAt, now)));
  return row;
}

/** Open threads of a drop (what every deploy answer reports as open_comments). */
export async function countOpenThreads(db: Db, dropId: string): Promise<number> {
  const [n] = await db
    .select({ n: count() })
    .from(comments)
    .where(and(eq(comments.dropId, dropId), isNull(comments.parentId), eq(comments.status, "open")));
  return n?.n ?? 0;
}

export type NewThread = Omit<typeof comments.$inferInsert, "parentId" | "status" | "resolvedAt">;

/** The event body of a comment (comment.created, comment.resolved). */
function eventComment(c: CommentRow) {
  return {
    id: c.id,
    version: c.version,
    path: c.path,
    body: c.body,
    author: { kind: c.authorKind, name: c.authorName },
    pin: c.pin ?? null,
  };
}

/** Starts a thread unless the drop has `max` open ones already; records comment.created. */
export async function insertThread(
  db: Db,
  row: NewThread,
  max: number,
): Promise<{ ok: true; row: CommentRow } | { ok: false; reason: "gone" | "no_version" | "cap" }> {
  return db.transaction(async (tx) => {
    const [locked] = await tx
      .select({ slug: drops.slug, ownerId: drops.ownerId })
      .from(drops)
      .where(eq(drops.id, row.dropId))
      .for("update");
    if (!locked) return { ok: false, reason: "gone" };
    const [kept] = await tx
      .select({ version: dropVersions.version })
      .from(dropVersions)
      .where(and(eq(dropVersions.dropId, row.dropId), eq(dropVersions.version, row.version)));
    if (!kept) return { ok: false, reason: "no_version" };
    const [n] = await tx
      .select({ n: count() })
      .from(comments)
      .where(and(eq(comments.dropId, row.dropId), isNull(comments.parentId), eq(comments.status, "open")));
    if ((n?.n ?? 0) >= max) return { ok: false, reason: "cap" };
    const [out] = await tx.insert(comments).values(row).returning();
    await recordEvent(tx, {
      accountId: locked.ownerId,
      type: "comment.created",
      data: { slug: locked.slug, comment: eventComment(out!) },
      now: row.createdAt ?? new Date(),
    });
    return { ok: true, row: out! };
  });
}

/** A thread (not a reply) of the drop by id. */
export async function findThread(db: Db, dropId: string, id: string): Promise<CommentRow | undefined> {
  const [row] = await db
    .select()
    .from(comments)
    .where(and(eq(comments.id, id), eq(comments.dropId, dropId), isNull(comments.parentId)));
  return row;
}

export async function insertReply(db: Db, row: typeof comments.$inferInsert): Promise<CommentRow> {
  const [out] = await db.insert(comments).values(row).returning();
  return out!;
}

/**
 * Resolves or reopens a thread (reopening is refused past `max` open threads); resolving records
 * comment.resolved. Undefined: no such thread.
 */
export async function setThreadStatus(
  db: Db,
  a: { dropId: string; id: string; status: "open" | "resolved"; now: Date; max: number },
): Promise<{ ok: true; row: CommentRow } | { ok: false; reason: "gone" | "cap" }> {
  return db.transaction(async (tx) => {
    const [locked] = await tx
      .select({ slug: drops.slug, ownerId: drops.ownerId })
      .from(drops)
      .where(eq(drops.id, a.dropId))
      .for("update");
    const where = and(eq(comments.id, a.id), eq(comments.dropId, a.dropId), isNull(comments.parentId));
    const [current] = locked ? await tx.select().from(comments).where(where) : [];
    if (!locked || !current) return { ok: false, reason: "gone" };
    if (current.status === a.status) return { ok: true, row: current };
    if (a.status === "open") {
      const [n] = await tx
        .select({ n: count() })
        .from(comments)
        .where(and(eq(comments.dropId, a.dropId), isNull(comments.parentId), eq(comments.status, "open")));
      if ((n?.n ?? 0) >= a.max) return { ok: false, reason: "cap" };
    }
    const [row] = await tx
      .update(comments)
      .set({ status: a.status, resolvedAt: a.status === "resolved" ? a.now : null })
      .where(where)
      .returning();
    if (a.status === "resolved")
      await recordEvent(tx, {
        accountId: locked.ownerId,
        type: "comment.resolved",
        data: { slug: locked.slug, comment: eventComment(row!) },
        now: a.now,
      });
    return { ok: true, row: row! };
  });
}

/** The most threads one list answer carries (total counts them all). */
export const THREADS_LISTED = 500;

/**
 * A drop's threads by the filters, open ones first then resolved, oldest first within each;
 * their replies, oldest first; and which of their versions the drop still keeps.
 */
export async function listThreads(
  db: Db,
  dropId: string,
  f: { status: "open" | "resolved" | "all"; version?: number; path?: string },
): Promise<{ total: number; threads: CommentRow[]; replies: CommentRow[]; kept: Set<number> }> {
  const where = and(
    eq(comments.dropId, dropId),
    isNull(comments.parentId),
    f.status === "all" ? undefined : eq(comments.status, f.status),
    f.version === undefined ? undefined : eq(comments.version, f.version),
    f.path === undefined ? undefined : eq(comments.path, f.path),
  );
  const [n] = await db.select({ n: count() }).from(comments).where(where);
  const threads = await db
    .select()
    .from(comments)
    .where(where)
    .orderBy(sql`case when ${comments.status} = 'open' then 0 else 1 end`, asc(comments.createdAt), asc(comments.id))
    .limit(THREADS_LISTED);
  const ids = threads.map((t) => t.id);
  const replies =
    ids.length === 0
      ? []
      : await db
          .select()
          .from(comments)
          .where(and(eq(comments.dropId, dropId), inArray(comments.parentId, ids)))
          .orderBy(asc(comments.createdAt), asc(comments.id));
  const versions = await db
    .select({ version: dropVersions.version })
    .from(dropVersions)
    .where(eq(dropVersions.dropId, dropId));
  return { total: n?.n ?? 0, threads, replies, kept: new Set(versions.map((v) => v.version)) };
}

/** One thread of the drop with its replies and whether its version is still kept. */
export async function threadWithReplies(
  db: Db,
  dropId: string,
  id: string,
): Promise<{ thread: CommentRow; replies: CommentRow[]; kept: boolean } | undefined> {
  const thread = await findThread(db, dropId, id);
  if (!thread) return undefined;
  const replies = await db
    .select()
    .from(comments)
    .where(and(eq(comments.dropId, dropId), eq(comments.parentId, id)))
    .orderBy(asc(comments.createdAt), asc(comments.id));
  const [kept] = await db
    .select({ version: dropVersions.version })
    .from(dropVersions)
    .where(and(eq(dropVersions.dropId, dropId), eq(dropVersions.version, thread.version)));
  return { thread, replies, kept: kept !== undefined };
}
