import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { ts } from "./columns";
import { drops } from "./drops";

// Review (DESIGN round 5, "Review"): review links that let a person without an account read and
// add comments on one drop, and the comments themselves (threads pinned on a page of a version,
// their replies). Everything goes with the drop (FK cascade); a pruned version's comments stay.

/**
 * A review link: BASE_URL/review/<token>, the token (`rl_` + 43 base64url characters) kept only
 * as its SHA-256. Usable until it expires or is revoked.
 */
export const reviewLinks = pgTable(
  "review_links",
  {
    id: text("id").primaryKey(),
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    /** SHA-256 hex of the token. */
    tokenHash: text("token_hash").notNull(),
    label: text("label"),
    /** The account (a person, or a team's person) that minted it. */
    createdBy: text("created_by"),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    revokedAt: ts("revoked_at"),
  },
  (t) => [uniqueIndex("review_links_token_idx").on(t.tokenHash), index("review_links_drop_idx").on(t.dropId)],
);
export type ReviewLinkRow = typeof reviewLinks.$inferSelect;

/** Where a pin sits: CSS pixels of the full page at one of the review widths. */
export interface CommentPin {
  width: number;
  x: number;
  y: number;
}

/**
 * A comment: a thread (parent_id null: version, path and an optional pin) or a reply to one
 * (parent_id set; version and path copied from the thread). Bodies are text, shown escaped.
 */
export const comments = pgTable(
  "comments",
  {
    id: text("id").primaryKey(),
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    parentId: text("parent_id"),
    version: integer("version").notNull(),
    path: text("path").notNull(),
    pin: jsonb("pin").$type<CommentPin>(),
    body: text("body").notNull(),
    authorKind: text("author_kind").$type<"account" | "review_link">().notNull(),
    authorName: text("author_name").notNull(),
    /** The account that wrote it, or the review link it came through (neither is shown). */
    authorAccountId: text("author_account_id"),
    reviewLinkId: text("review_link_id"),
    status: text("status").$type<"open" | "resolved">().notNull().default("open"),
    createdAt: ts("created_at").notNull().defaultNow(),
    resolvedAt: ts("resolved_at"),
  },
  (t) => [
    index("comments_drop_status_idx").on(t.dropId, t.status, t.createdAt),
    index("comments_parent_idx")
      .on(t.parentId)
      .where(sql`${t.parentId} is not null`),
  ],
);
export type CommentRow = typeof comments.$inferSelect;
