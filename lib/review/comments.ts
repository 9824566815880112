import type { AppContext } from "../context";
import { findThread, insertReply, insertThread, listThreads, setThreadStatus, threadWithReplies } from "../db/review";
import { withDb } from "../db/errors";
import type { CommentRow } from "../db/schema";
import { ApiError } from "../errors";
import { prefixedId } from "../ids";
import { reviewLimits } from "../plans";
import { clientAddress } from "../ratelimit/address";
import { enforceLimit } from "../ratelimit/guard";
import {
  commentsQuerySchema,
  reviewerNameSchema,
  type Comment,
  type CommentList,
  type CommentReply,
  type CommentsQuery,
  type CreateCommentBody,
} from "../schemas";
import type { Reviewer } from "./reviewer";

// Comments on a drop's previews (DESIGN round 5, "Review"): threads on a page of a version,
// pinned or page-level, their replies, and resolving. Viewers and up and link holders comment
// and reply; members and up resolve and reopen (the gate table); a link holder may not (403).
// Every write counts against the writer's address, and a link's writes against the link.

/** `/index.html` is `/`, `/docs/index.html` is `/docs/`: the page's URL path as the page picker lists it. */
export function pagePath(path: string): string {
  return path.endsWith("/index.html") ? path.slice(0, -"index.html".length) : path;
}

function authorOf(
  r: Reviewer,
  rawName: unknown,
): { kind: "account" | "review_link"; name: string; account: string | null; link: string | null } {
  if (r.kind === "account") {
    const person = r.caller.actor ?? r.caller.account;
    return { kind: "account", name: person.email ?? person.id, account: person.id, link: null };
  }
  const parsed = reviewerNameSchema.safeParse(rawName);
  if (!parsed.success)
    throw ApiError.fromZod(parsed.error, "The body", {
      under: ["name"],
      hint: `A review link's comments carry the writer's name: send name (1 to ${reviewLimits.nameChars} characters).`,
    });
  return { kind: "review_link", name: parsed.data, account: null, link: r.link.id };
}

/** Counts one comment write against the link (link holders) and the client's address. */
async function spendWrite(ctx: AppContext, req: Request, r: Reviewer): Promise<void> {
  if (r.kind === "link") await enforceLimit(ctx, "commentLink", r.link.id);
  await enforceLimit(ctx, "commentAddress", clientAddress(req, ctx.env));
}

function replyOf(row: CommentRow): CommentReply {
  return {
    id: row.id,
    body: row.body,
    author: { kind: row.authorKind, name: row.authorName },
    created_at: row.createdAt.toISOString(),
  };
}

/** A thread as the API answers it. */
export function commentOf(
  row: CommentRow,
  replies: CommentRow[],
  kept: boolean,
  screenshotUrl: string | null,
): Comment {
  return {
    id: row.id,
    version: row.version,
    version_pruned: !kept,
    path: row.path,
    pin: row.pin ?? null,
    body: row.body,
    author: { kind: row.authorKind, name: row.authorName },
    status: row.status,
    created_at: row.createdAt.toISOString(),
    resolved_at: row.resolvedAt ? row.resolvedAt.toISOString() : null,
    replies: replies.map(replyOf),
    screenshot_url: screenshotUrl,
  };
}

function capError(): ApiError {
  return new ApiError(
    "invalid_request",
    `This drop has ${reviewLimits.openCommentsPerDrop} open comments, the most it may have.`,
    {
      hint: "Resolve some of them first.",
      details: { limit: "max_open_comments", allowed: reviewLimits.openCommentsPerDrop },
    },
  );
}

function noComment(slug: string): ApiError {
  return new ApiError("not_found", `${slug} has no comment thread with that id.`);
}

const COMMENT_ID = /^cmt_[a-z2-7]{24}$/;

// POST /drops/{slug}/comments
export async function createComment(
  ctx: AppContext,
  req: Request,
  r: Reviewer,
  body: CreateCommentBody,
): Promise<Comment> {
  const author = authorOf(r, body.name);
  await spendWrite(ctx, req, r);
  const out = await withDb(() =>
    insertThread(
      ctx.db,
      {
        id: prefixedId("cmt"),
        dropId: r.drop.id,
        version: body.version,
        path: pagePath(body.path),
        pin: body.pin ?? null,
        body: body.body,
        authorKind: author.kind,
        authorName: author.name,
        authorAccountId: author.account,
        reviewLinkId: author.link,
        createdAt: new Date(ctx.now()),
      },
      reviewLimits.openCommentsPerDrop,
    ),
  );
  if (!out.ok) {
    if (out.reason === "cap") throw capError();
    if (out.reason === "no_version")
      throw new ApiError("not_found", `${r.drop.slug} has no version ${body.version} (unknown or no longer kept).`, {
        hint: "List the drop's versions (GET /drops/{slug}/versions) and comment on a retained one.",
      });
    throw new ApiError("not_found", "The drop was deleted.");
  }
  return commentOf(out.row, [], true, null);
}

// GET /drops/{slug}/comments
export async function listComments(ctx: AppContext, r: Reviewer, q: CommentsQuery): Promise<CommentList> {
  const { total, threads, replies, kept } = await withDb(() =>
    listThreads(ctx.db, r.drop.id, { ...q, path: q.path === undefined ? undefined : pagePath(q.path) }),
  );
  const byThread = new Map<string, CommentRow[]>();
  for (const reply of replies) {
    const list = byThread.get(reply.parentId!) ?? [];
    list.push(reply);
    byThread.set(reply.parentId!, list);
  }
  return {
    total,
    comments: threads.map((t) => commentOf(t, byThread.get(t.id) ?? [], kept.has(t.version), null)),
  };
}

// POST /drops/{slug}/comments/{id}/replies
export async function replyToComment(
  ctx: AppContext,
  req: Request,
  r: Reviewer,
  id: unknown,
  body: { body: string; name?: unknown },
): Promise<CommentReply> {
  const thread =
    typeof id === "string" && COMMENT_ID.test(id) ? await withDb(() => findThread(ctx.db, r.drop.id, id)) : undefined;
  if (!thread) throw noComment(r.drop.slug);
  const author = authorOf(r, body.name);
  await spendWrite(ctx, req, r);
  const row = await withDb(() =>
    insertReply(ctx.db, {
      id: prefixedId("cmt"),
      dropId: r.drop.id,
      parentId: thread.id,
      version: thread.version,
      path: thread.path,
      body: body.body,
      authorKind: author.kind,
      authorName: author.name,
      authorAccountId: author.account,
      reviewLinkId: author.link,
      createdAt: new Date(ctx.now()),
    }),
  );
  return replyOf(row);
}

// PATCH /drops/{slug}/comments/{id}
export async function setCommentStatus(
  ctx: AppContext,
  r: Reviewer,
  id: unknown,
  status: "open" | "resolved",
): Promise<Comment> {
  if (r.kind === "link")
    throw new ApiError("forbidden", "A review link may read, comment and reply; resolving is for the drop's team.", {
      hint: "Ask the drop's owner or a member of its team to resolve it.",
    });
  if (typeof id !== "string" || !COMMENT_ID.test(id)) throw noComment(r.drop.slug);
  const out = await withDb(() =>
    setThreadStatus(ctx.db, {
      dropId: r.drop.id,
      id,
      status,
      now: new Date(ctx.now()),
      max: reviewLimits.openCommentsPerDrop,
    }),
  );
  if (!out.ok) throw out.reason === "cap" ? capError() : noComment(r.drop.slug);
  const full = await withDb(() => threadWithReplies(ctx.db, r.drop.id, id));
  if (!full) throw noComment(r.drop.slug);
  return commentOf(full.thread, full.replies, full.kept, null);
}

/** The list's query (status, version, path): anything else in it is ignored; a bad value is 400. */
export function parseCommentsQuery(params: URLSearchParams | Record<string, unknown>): CommentsQuery {
  const raw = params instanceof URLSearchParams ? Object.fromEntries(params) : params;
  const parsed = commentsQuerySchema.safeParse(raw);
  if (!parsed.success) throw ApiError.fromZod(parsed.error, "The query");
  return parsed.data;
}
