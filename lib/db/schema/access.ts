import { index, integer, pgTable, text } from "drizzle-orm/pg-core";
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
