import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { SiteRules } from "../../rules/types";
import { ts } from "./columns";

// Accounts, drops and their files: the account, the drop, its file rows and versions, the
// content-addressed bytes they point at (bytes live in Storage, addressed by files.storage_ref),
// and the idempotency keys of writes.

export const accounts = pgTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    email: text("email"),
    plan: text("plan").$type<"free" | "pro" | "team">().notNull().default("free"),
    createdAt: ts("created_at").notNull().defaultNow(),
    stripeCustomerId: text("stripe_customer_id"),
    stripeSubscriptionId: text("stripe_subscription_id"),
    subscriptionStatus: text("subscription_status"),
    currentPeriodEnd: ts("current_period_end"),
    cancelAt: ts("cancel_at"),
    /** Creation time of the newest billing event applied; older events cannot overwrite it. */
    billingEventAt: ts("billing_event_at"),
    vanitySub: text("vanity_sub"),
    /** Whether the identity provider vouched for email (email_verified): only then can ADMIN_EMAILS name it. */
    emailVerified: boolean("email_verified").notNull().default(false),
    /** When `npm run admin -- grant-admin` made the account an operator; null otherwise. */
    adminGrantedAt: ts("admin_granted_at"),
    /** A suspension by an operator: the reason category (the 451 page names it) and when. */
    suspendedReason: text("suspended_reason"),
    suspendedAt: ts("suspended_at"),
  },
  (t) => [
    uniqueIndex("accounts_issuer_subject_idx").on(t.issuer, t.subject),
    index("accounts_email_idx").on(t.email),
    uniqueIndex("accounts_stripe_customer_idx").on(t.stripeCustomerId),
    uniqueIndex("accounts_vanity_sub_idx").on(t.vanitySub),
  ],
);
export type AccountRow = typeof accounts.$inferSelect;

export const drops = pgTable(
  "drops",
  {
    id: text("id").primaryKey(),
    slug: text("slug").notNull(),
    ownerId: text("owner_id").references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name"),
    fileCount: integer("file_count").notNull().default(0),
    totalBytes: bigint("total_bytes", { mode: "number" }).notNull().default(0),
    redeployCount: integer("redeploy_count").notNull().default(0),
    /** SHA-256 hex of the one-time claim token of an anonymous drop; cleared when claimed. */
    claimTokenHash: text("claim_token_hash"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
    /** When the drop stops serving; null never. */
    expiresAt: ts("expires_at"),
    /** When the cleanup job removes files and rows; null never. */
    purgeAt: ts("purge_at"),
    /**
     * Who may see the drop: everyone, visitors who know its password, the owning team's members,
     * or the addresses of access_allow by a one-time sign-in link (lib/access).
     */
    accessMode: text("access_mode").$type<"public" | "password" | "members" | "emails">().notNull().default("public"),
    /** The emails mode's allow list (lower-case addresses and `@domains`); null in every other mode. */
    accessAllow: text("access_allow").array(),
    /** scrypt hash of the drop's password (salted, self-describing); null when public. */
    accessPasswordHash: text("access_password_hash"),
    /** Bumped by every access change; unlock cookies name it, so a change revokes them all. */
    accessPolicyVersion: integer("access_policy_version").notNull().default(0),
    /**
     * The site rules of the drop's files (its root _redirects and _headers, parsed at deploy),
     * written in the same transaction as the file rows; null when it has neither file.
     */
    siteRules: jsonb("site_rules").$type<SiteRules>(),
    /** The version served (drop_versions); file_count and total_bytes are that version's. */
    liveVersion: integer("live_version").notNull().default(1),
    /** An operator's disable: the reason category (the 451 page names it) and when; null when serving. */
    disabledReason: text("disabled_reason"),
    disabledAt: ts("disabled_at"),
  },
  (t) => [
    uniqueIndex("drops_slug_idx").on(t.slug),
    uniqueIndex("drops_owner_name_idx")
      .on(t.ownerId, t.name)
      .where(sql`${t.name} is not null`),
    index("drops_owner_created_idx").on(t.ownerId, t.createdAt),
    // The dashboard's drops list by last update and by name (lib/db/drop-search.ts).
    index("drops_owner_updated_idx").on(t.ownerId, t.updatedAt, t.id),
    index("drops_owner_label_idx").on(t.ownerId, sql`coalesce(${t.name}, ${t.slug})`, t.id),
    index("drops_purge_idx").on(t.purgeAt),
  ],
);
export type DropRow = typeof drops.$inferSelect;

export const files = pgTable(
  "files",
  {
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    path: text("path").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    sha256: text("sha256").notNull(),
    contentType: text("content_type").notNull(),
    /** Where Storage keeps the bytes (a key for the filesystem, a URL for Blob). */
    storageRef: text("storage_ref").notNull(),
    /** The upload batch the bytes were written in: storage keys start with `${dropId}/${batch}/`. */
    batch: text("batch").notNull(),
    /**
     * The content scope the bytes belong to (an account id, or a scope of its own for anonymous
     * bytes): the file references contents(scope, sha256). Null for rows written before contents
     * existed, whose bytes live under `${dropId}/${batch}/`.
     */
    scope: text("scope"),
    /** The drop version the row belongs to: every version has all its file rows. */
    version: integer("version").notNull().default(1),
  },
  (t) => [primaryKey({ columns: [t.dropId, t.version, t.path] }), index("files_scope_sha_idx").on(t.scope, t.sha256)],
);
export type FileRow = typeof files.$inferSelect;

/**
 * The versions of a drop: one immutable row per write that changed its files (numbered per
 * drop from 1). drops.live_version names the one served; a rollback moves that pointer. The
 * cleanup job prunes the oldest beyond the plan's versionsKept (never the live one).
 */
export const dropVersions = pgTable(
  "drop_versions",
  {
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    kind: text("kind").$type<"deploy" | "replace" | "append">().notNull(),
    fileCount: integer("file_count").notNull(),
    totalBytes: bigint("total_bytes", { mode: "number" }).notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    /** The version's site rules (its _redirects and _headers, parsed); a rollback makes them live. */
    siteRules: jsonb("site_rules").$type<SiteRules>(),
  },
  (t) => [primaryKey({ columns: [t.dropId, t.version] })],
);
export type DropVersionRow = typeof dropVersions.$inferSelect;

/**
 * A drop's aliases: a name that points at one retained version and moves (PUT
 * /drops/{slug}/aliases/{name}); `<slug>---<name>` serves that version. An aliased version is
 * never pruned. Writes go through the change feed (a trigger, drizzle/0023_aliases.sql).
 */
export const dropAliases = pgTable(
  "drop_aliases",
  {
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    version: integer("version").notNull(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.dropId, t.name] })],
);
export type DropAliasRow = typeof dropAliases.$inferSelect;

/**
 * Idempotency keys of writes, per caller (an account id, or `ip:<address>` when anonymous):
 * the first request's fingerprint and, once it finished, its answer, replayed for 24 hours.
 * The insert of the row is the lock: one request with a key runs, the others wait or replay.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    caller: text("caller").notNull(),
    key: text("key").notNull(),
    /** SHA-256 hex of method, path, query, Content-Type, If-Match and body bytes. */
    fingerprint: text("fingerprint").notNull(),
    /** Null while the first request is in flight. */
    status: integer("status"),
    body: text("body"),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.caller, t.key] }), index("idempotency_keys_expires_idx").on(t.expiresAt)],
);
export type IdempotencyKeyRow = typeof idempotencyKeys.$inferSelect;

/**
 * Content-addressed bytes: one stored object per SHA-256 within a scope (an account, or an
 * anonymous drop or preflight), shared by every file row of that scope with that hash. A row
 * without file references is purged unless it is pinned by a deploy or upload in flight or held
 * for a preflight's deploy (hold_until).
 */
export const contents = pgTable(
  "contents",
  {
    scope: text("scope").notNull(),
    sha256: text("sha256").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    /** Where Storage keeps the bytes; null until they are stored and verified. */
    storageRef: text("storage_ref"),
    /** Deploys and uploads using the row right now; a purge leaves pinned rows alone. */
    pins: integer("pins").notNull().default(0),
    /** When the last pin was taken: pins older than an hour are those of crashed requests. */
    pinnedAt: ts("pinned_at"),
    /** Uploaded for a preflight: kept unreferenced until then. */
    holdUntil: ts("hold_until"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.sha256] })],
);
export type ContentRow = typeof contents.$inferSelect;
