import { index, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { ts } from "./columns";
import type { TeamRole } from "../../schemas/teams";
import { accounts } from "./drops";

// Teams: accounts that people share (DESIGN "Teams"). A team, its members with their roles, its
// invitations (only a keyed hash of each code is kept), and its audit log (append-only).

export const teams = pgTable(
  "teams",
  {
    id: text("id").primaryKey(),
    /** A vanity sub's pattern; one namespace with vanity subs and the reserved labels. */
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    /**
     * The person whose subscription carries the team's plan (its creator). Null once that
     * person's account is gone: the team then has no paid plan.
     */
    billingOwnerId: text("billing_owner_id").references(() => accounts.id, { onDelete: "set null" }),
    /**
     * The account the team acts as: every resource of rounds 1-3 (drops, names, keys, webhooks,
     * domains, vanity) belongs to an account id, so a team's resources belong to this one. Its
     * plan follows the billing owner's (lib/db/billing.ts keeps it in step); no one logs in as it.
     */
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("teams_slug_idx").on(t.slug),
    uniqueIndex("teams_account_idx").on(t.accountId),
    index("teams_billing_owner_idx").on(t.billingOwnerId),
  ],
);
export type TeamRow = typeof teams.$inferSelect;

export const teamMembers = pgTable(
  "team_members",
  {
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    role: text("role").$type<TeamRole>().notNull(),
    joinedAt: ts("joined_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.accountId] }), index("team_members_account_idx").on(t.accountId)],
);
export type TeamMemberRow = typeof teamMembers.$inferSelect;

/**
 * Invitations: single use, 7 days, revocable. code_hash is HMAC-SHA256 of the code under a key
 * derived from the server secret (lib/teams/invites.ts); the code itself is shown once.
 */
export const teamInvites = pgTable(
  "team_invites",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    role: text("role").$type<TeamRole>().notNull(),
    /** When set, only a person whose (verified) login email this is may join. Lowercase. */
    email: text("email"),
    /** Who invited (kept for the record; the audit names them too). */
    invitedBy: text("invited_by").references(() => accounts.id, { onDelete: "set null" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
    usedBy: text("used_by").references(() => accounts.id, { onDelete: "set null" }),
    revokedAt: ts("revoked_at"),
  },
  (t) => [
    uniqueIndex("team_invites_code_idx").on(t.codeHash),
    index("team_invites_team_idx").on(t.teamId, t.createdAt),
  ],
);
export type TeamInviteRow = typeof teamInvites.$inferSelect;

/**
 * The team's audit log (append-only: the app inserts and reads, never updates or deletes; the
 * rows go with the team). The acting person and the credential used, by id; the person's email
 * as it was then.
 */
export const teamAudit = pgTable(
  "team_audit",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    at: ts("at").notNull().defaultNow(),
    actorId: text("actor_id").notNull(),
    actorEmail: text("actor_email"),
    credentialKind: text("credential_kind").$type<"key" | "session" | "oauth">().notNull(),
    credentialId: text("credential_id").notNull(),
    action: text("action").notNull(),
    target: text("target").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>(),
  },
  (t) => [index("team_audit_team_at_idx").on(t.teamId, t.at)],
);
export type TeamAuditRow = typeof teamAudit.$inferSelect;
