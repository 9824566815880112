import { index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { ts } from "./columns";
import { accounts, drops } from "./drops";

// Members-only drops (DESIGN "Teams"): the one-time tokens the app host hands a logged-in member
// of the owning team, for the drop host's unlock path to exchange for the drop's cookie.

/**
 * One row per token: good once (deleted as it is used), for one drop at one policy version,
 * until expires_at (60 s). token_hash is HMAC-SHA256 of the token under a key derived from the
 * server secret (lib/access/members.ts); the token itself is never stored.
 */
export const memberAccessTokens = pgTable(
  "member_access_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    /** The member it was handed to (kept for the record; the row goes with the account). */
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** The drop's policy version when it was made: a change since (a member removed) refuses it. */
    policyVersion: integer("policy_version").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [index("member_access_tokens_expires_idx").on(t.expiresAt)],
);
export type MemberAccessTokenRow = typeof memberAccessTokens.$inferSelect;

// Emails-only drops and share links (DESIGN "Sharing by identity"). Every token is stored as its
// keyed hash only (HMAC-SHA256 under a key derived from the server secret, lib/access/viewer.ts).

/**
 * A one-time sign-in link mailed to an address on an emails-only drop's list: good once (deleted
 * as it is opened), for SIGNIN_LINK_SECONDS, on the host it was asked from, at the policy version
 * then, and only while its address is still on the list.
 */
export const signinTokens = pgTable(
  "signin_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    host: text("host").notNull(),
    policyVersion: integer("policy_version").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [index("signin_tokens_expires_idx").on(t.expiresAt)],
);
export type SigninTokenRow = typeof signinTokens.$inferSelect;

/** Who came: an address whose sign-in link was opened, with its views as the counts count them; kept VIEWERS_KEPT_DAYS after last_seen. */
export const dropViewers = pgTable(
  "drop_viewers",
  {
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    firstSeen: ts("first_seen").notNull(),
    lastSeen: ts("last_seen").notNull(),
    views: integer("views").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.dropId, t.email] }), index("drop_viewers_last_seen_idx").on(t.lastSeen)],
);
export type DropViewerRow = typeof dropViewers.$inferSelect;

/**
 * A share link of a password or emails drop: a URL on the drop's host that sets the access cookie
 * for whoever opens it until expires_at; revoked (revoked_at) by DELETE or by any change of the
 * drop's access mode, which ends the cookies it set at once.
 */
export const shareLinks = pgTable(
  "share_links",
  {
    id: text("id").primaryKey(),
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    host: text("host").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    revokedAt: ts("revoked_at"),
  },
  (t) => [index("share_links_drop_idx").on(t.dropId)],
);
export type ShareLinkRow = typeof shareLinks.$inferSelect;
