import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type { SiteRules } from "../rules/types";

// Metadata of accounts, drops and their files. Bytes live in Storage, addressed by files.storage_ref.

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

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
    /** Who may see the drop: everyone, or visitors who know its password (lib/access). */
    accessMode: text("access_mode").$type<"public" | "password">().notNull().default("public"),
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
 * Webhooks (docs/webhooks.md): an account's receivers. The signing secret is kept encrypted
 * (AES-256-GCM under a key derived from NEXTAUTH_SECRET, lib/webhooks/secret.ts): deliveries
 * must sign with it, so a one-way hash would not do.
 */
export const webhooks = pgTable(
  "webhooks",
  {
    /** wh_ and 24 base32 characters. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    /** The event types it receives (lib/patterns.ts WEBHOOK_EVENTS). */
    events: jsonb("events").$type<string[]>().notNull(),
    /** The whsec_ secret, encrypted: v1.<iv>.<tag>.<ciphertext> (base64url). */
    secretSealed: text("secret_sealed").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("webhooks_account_idx").on(t.accountId)],
);
export type WebhookRow = typeof webhooks.$inferSelect;

/**
 * The outbox: one row per change an account is told about, written in the change's own
 * transaction (lib/db/events.ts recordEvent). Its id is the webhook-id of every delivery.
 */
export const events = pgTable(
  "events",
  {
    /** msg_ and 24 base32 characters. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    /** The body's data, without url (added at delivery from the serve domain). */
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("events_account_created_idx").on(t.accountId, t.createdAt)],
);
export type EventRow = typeof events.$inferSelect;

/**
 * What each webhook still owes: one row per event and webhook subscribed when the event was
 * recorded. A worker claims due rows (FOR UPDATE SKIP LOCKED), moving next_attempt_at past the
 * attempt's timeout so no other worker takes it meanwhile, then records the outcome.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    eventId: text("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    /** pending (due at next_attempt_at) → delivered | failed (retries exhausted). */
    state: text("state").$type<"pending" | "delivered" | "failed">().notNull().default("pending"),
    /** Attempts started so far. */
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ts("next_attempt_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.webhookId, t.eventId] }),
    index("webhook_deliveries_due_idx").on(t.state, t.nextAttemptAt),
  ],
);
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/** The delivery log: one row per attempt (GET /webhooks/{id}/deliveries). */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull(),
    type: text("type").notNull(),
    attempt: integer("attempt").notNull(),
    /** The receiver's HTTP status; null when there was none (refused address, timeout, network). */
    statusCode: integer("status_code"),
    error: text("error"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("webhook_attempts_webhook_created_idx").on(t.webhookId, t.createdAt)],
);
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;

/**
 * Custom domains: a hostname (normal form, lib/hostname.ts) an account points at one of its
 * drops by slug, so a named drop keeps it across replaces and rollbacks. Pending until the TXT
 * record _dropsite-challenge.<hostname> holds verification_value; then active and served.
 */
export const domains = pgTable(
  "domains",
  {
    hostname: text("hostname").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    status: text("status").$type<"pending" | "active">().notNull().default("pending"),
    /** The random value the TXT record must hold (not a secret: it is published in DNS). */
    verificationValue: text("verification_value").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    /** When the domain last became active; null while it never was. */
    verifiedAt: ts("verified_at"),
    /** When the TXT record was last seen (verify and the cleanup job's re-check). */
    lastSeenAt: ts("last_seen_at"),
  },
  (t) => [
    index("domains_account_idx").on(t.accountId, t.createdAt),
    index("domains_status_seen_idx").on(t.status, t.lastSeenAt),
  ],
);
export type DomainRow = typeof domains.$inferSelect;

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

export const apiKeys = pgTable(
  "api_keys",
  {
    /** SHA-256 hex of the full secret: the key id of the contract. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    prefix: text("prefix").notNull(),
    note: text("note").notNull().default(""),
    createdAt: ts("created_at").notNull().defaultNow(),
    lastUsedAt: ts("last_used_at"),
    revokedAt: ts("revoked_at"),
  },
  (t) => [index("api_keys_account_idx").on(t.accountId)],
);
export type ApiKeyRow = typeof apiKeys.$inferSelect;

/**
 * The OAuth authorization server's storage (oidc-provider models, lib/oauth): registered
 * clients, grants, authorization codes, access and refresh tokens, interactions, and the
 * server's own signing and cookie keys (model "ServerKeys", generated once). One row per model
 * instance; the columns beside the payload are what the server looks rows up by. Rows of an
 * account go with it.
 */
export const oauthModels = pgTable(
  "oauth_models",
  {
    model: text("model").notNull(),
    id: text("id").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    grantId: text("grant_id"),
    uid: text("uid"),
    userCode: text("user_code"),
    accountId: text("account_id").references(() => accounts.id, { onDelete: "cascade" }),
    clientId: text("client_id"),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at"),
    consumedAt: ts("consumed_at"),
  },
  (t) => [
    primaryKey({ columns: [t.model, t.id] }),
    index("oauth_models_grant_idx").on(t.grantId),
    index("oauth_models_uid_idx").on(t.uid),
    index("oauth_models_account_idx").on(t.accountId, t.model),
    index("oauth_models_expires_idx").on(t.expiresAt),
  ],
);
export type OauthModelRow = typeof oauthModels.$inferSelect;

/** Stripe events already applied, by event id: a replay changes nothing. */
export const billingEvents = pgTable("billing_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  receivedAt: ts("received_at").notNull().defaultNow(),
});

/**
 * Device authorisations (RFC 8628): an agent asks, a logged-in person approves by user code,
 * the agent's poll exchanges the approval for a new API key once. Only the SHA-256 of the
 * device code is stored.
 */
export const deviceCodes = pgTable(
  "device_codes",
  {
    /** SHA-256 hex of the device_code. */
    id: text("id").primaryKey(),
    /** What the person types or confirms, e.g. WDJB-MJHT (unique among live requests). */
    userCode: text("user_code").notNull(),
    /** pending → approved | denied; approved → used when the key is issued. */
    status: text("status", { enum: ["pending", "approved", "denied", "used"] })
      .notNull()
      .default("pending"),
    accountId: text("account_id").references(() => accounts.id, { onDelete: "cascade" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    /** Seconds the agent waits between polls; raised by slow_down. */
    intervalSeconds: integer("interval_seconds").notNull(),
    lastPolledAt: ts("last_polled_at"),
    /**
     * Anonymous drops the agent asks to move into the approving account (slug and SHA-256 of
     * the claim token), with each one's outcome once the request is approved.
     */
    claims: jsonb("claims").$type<DeviceClaim[]>().notNull().default([]),
  },
  (t) => [uniqueIndex("device_codes_user_code_idx").on(t.userCode), index("device_codes_expires_idx").on(t.expiresAt)],
);
export type DeviceCodeRow = typeof deviceCodes.$inferSelect;

export interface DeviceClaim {
  slug: string;
  tokenHash: string;
  /** Set on approval: claimed, or why not (the error code of POST /claim and its message). */
  outcome?: { claimed: true; url: string } | { claimed: false; code: string; error: string };
}

/**
 * One-time deploy grants (MCP deploy_directory): a bearer URL that deploys once, as the caller
 * who asked for it (an account, or anonymous), with the options given then. Only the SHA-256
 * of the token is stored.
 */
export const deployGrants = pgTable(
  "deploy_grants",
  {
    /** SHA-256 hex of the token. */
    id: text("id").primaryKey(),
    accountId: text("account_id").references(() => accounts.id, { onDelete: "cascade" }),
    /**
     * The API key that asked for the grant: the grant works only while that key is live, so a
     * revocation ends it too. Null for an ID token (not revocable; it outlives no grant by
     * more than its hour) and for anonymous callers.
     */
    apiKeyId: text("api_key_id").references(() => apiKeys.id, { onDelete: "cascade" }),
    /**
     * The OAuth grant (lib/oauth) whose access token asked for the grant: it works only while
     * that grant exists, so revoking the connected client ends it too.
     */
    oauthGrantId: text("oauth_grant_id"),
    /** The ttl asked for (seconds, already checked for the plan); null: the plan's default. */
    ttlSeconds: integer("ttl_seconds"),
    name: text("name"),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    /** Set by the deploy that used the grant (and cleared again if that deploy was refused). */
    usedAt: ts("used_at"),
  },
  (t) => [index("deploy_grants_expires_idx").on(t.expiresAt)],
);
export type DeployGrantRow = typeof deployGrants.$inferSelect;

/**
 * Upload grants: what a preflight hands out. The upload targets of one preflight carry its token
 * in their URL (only its SHA-256 is stored); the token is good until expires_at, for the
 * contents of its scope (the account's, or for an anonymous caller a scope of the grant's own).
 */
export const uploadGrants = pgTable(
  "upload_grants",
  {
    /** SHA-256 hex of the token. */
    id: text("id").primaryKey(),
    scope: text("scope").notNull(),
    accountId: text("account_id").references(() => accounts.id, { onDelete: "cascade" }),
    /**
     * Whose held bytes an anonymous preflight counts against: the SHA-256 of the client
     * address (the address itself is not stored). Null for accounts, counted by their scope.
     */
    holder: text("holder"),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [index("upload_grants_expires_idx").on(t.expiresAt), index("upload_grants_holder_idx").on(t.holder)],
);

/**
 * The audit log (append-only: the app inserts and reads, never updates or deletes). One row per
 * operator action and per scan refusal or flag. actor: an account id, `cli`, `scan` or `system`;
 * target: `drop:<slug>`, `account:<id>`, `block:<cidr>`, `report:<id>` or `address:<keyed hash>`.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: text("id").primaryKey(),
    at: ts("at").notNull().defaultNow(),
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    target: text("target").notNull(),
    reason: text("reason"),
    data: jsonb("data").$type<Record<string, unknown>>(),
  },
  (t) => [
    index("audit_log_at_idx").on(t.at),
    index("audit_log_actor_at_idx").on(t.actor, t.at),
    index("audit_log_target_at_idx").on(t.target, t.at),
  ],
);
export type AuditRow = typeof auditLog.$inferSelect;

/**
 * What the deploy scan found on a drop's version (filled by lib/scan): `flagged` findings put the
 * drop in the review queue until an operator resolves them; `refused` ones are kept for the record.
 */
export const scanFindings = pgTable(
  "scan_findings",
  {
    id: text("id").primaryKey(),
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    /** The drop version the finding is about. */
    version: integer("version"),
    rule: text("rule").notNull(),
    file: text("file").notNull(),
    line: integer("line").notNull(),
    excerpt: text("excerpt").notNull(),
    action: text("action").$type<"refused" | "flagged">().notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    resolvedAt: ts("resolved_at"),
  },
  (t) => [index("scan_findings_drop_idx").on(t.dropId, t.createdAt), index("scan_findings_open_idx").on(t.resolvedAt)],
);
export type ScanFindingRow = typeof scanFindings.$inferSelect;

/**
 * Abuse reports (POST /reports): the reporter's address only as a keyed hash (HMAC under a key
 * derived from NEXTAUTH_SECRET), for the rate limit and for counting one address once.
 */
export const reports = pgTable(
  "reports",
  {
    id: text("id").primaryKey(),
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    /** The slug when reported (the queue and the audit name drops by slug). */
    slug: text("slug").notNull(),
    url: text("url").notNull(),
    reason: text("reason")
      .$type<"phishing" | "malware" | "spam" | "illegal" | "copyright" | "other" | "appeal">()
      .notNull(),
    details: text("details"),
    contact: text("contact"),
    reporterHash: text("reporter_hash").notNull(),
    status: text("status").$type<"open" | "resolved">().notNull().default("open"),
    /** How an operator resolved it: dismissed, disabled or deleted. */
    resolution: text("resolution"),
    createdAt: ts("created_at").notNull().defaultNow(),
    resolvedAt: ts("resolved_at"),
  },
  (t) => [
    index("reports_drop_status_idx").on(t.dropId, t.status),
    index("reports_status_created_idx").on(t.status, t.createdAt),
  ],
);
export type ReportRow = typeof reports.$inferSelect;

/** Address blocks: anonymous deploys, preflights and reports from the range are refused. */
export const blocks = pgTable(
  "blocks",
  {
    id: text("id").primaryKey(),
    /** The range in normal form (ipaddr.js: network address / prefix length). */
    cidr: text("cidr").notNull(),
    reason: text("reason").notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    /** When the block lapses; null never. */
    expiresAt: ts("expires_at"),
  },
  (t) => [index("blocks_expires_idx").on(t.expiresAt)],
);
export type BlockRow = typeof blocks.$inferSelect;
const count = (name: string) => bigint(name, { mode: "number" }).notNull().default(0);

/**
 * A drop's counts of one UTC day (lib/stats): each process adds up in memory and upserts one row
 * per drop and day at most every 10 s. The maps count views by request path, referrer host and
 * country code (the most viewed STATS_KEYS_KEPT of each). Nothing here names a visitor.
 */
export const dropStats = pgTable(
  "drop_stats",
  {
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    day: date("day", { mode: "string" }).notNull(),
    views: count("views"),
    visitors: count("visitors"),
    requests: count("requests"),
    bytes: count("bytes"),
    notFound: count("not_found"),
    botRequests: count("bot_requests"),
    previews: count("previews"),
    paths: jsonb("paths").$type<Record<string, number>>().notNull().default({}),
    referrers: jsonb("referrers").$type<Record<string, number>>().notNull().default({}),
    countries: jsonb("countries").$type<Record<string, number>>().notNull().default({}),
  },
  (t) => [primaryKey({ columns: [t.dropId, t.day] }), index("drop_stats_day_idx").on(t.day)],
);
export type DropStatsRow = typeof dropStats.$inferSelect;

/**
 * The distinct visitors of a day still open: SHA-256 of the day's salt, the client address and
 * the user agent (never the address or agent themselves). Deleted once the day's count is final.
 */
export const dropStatsVisitors = pgTable(
  "drop_stats_visitors",
  {
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    day: date("day", { mode: "string" }).notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [primaryKey({ columns: [t.dropId, t.day, t.hash] }), index("drop_stats_visitors_day_idx").on(t.day)],
);

/** The random salt of each open day, shared by every process; deleted when its day is final. */
export const statsSalts = pgTable("stats_salts", {
  day: date("day", { mode: "string" }).primaryKey(),
  salt: text("salt").notNull(),
});

/** PostgreSQL's 64-bit transaction id (xid8), read as its decimal text. */
const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => "xid8" });

/**
 * The change feed of the serve path's manifest cache (lib/serve/feed.ts): one row per change to
 * a drop, its access, its domains or its owner's vanity sub or suspension, written by triggers on
 * drops, domains and accounts (drizzle/0015_longtail.sql), so no write path can forget it.
 * `xid` is the writing transaction's id: readers poll by it, not by seq, because sequence values
 * commit out of order. Rows older than a few minutes are pruned by the cleanup job.
 */
export const dropChanges = pgTable(
  "drop_changes",
  {
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    /** The drop changed; null for a domain or account change. */
    dropId: text("drop_id"),
    /** The drop's slug (a domain change: the slug it points at). */
    slug: text("slug"),
    /** drop, domain or account. */
    kind: text("kind").$type<"drop" | "domain" | "account">().notNull(),
    /** A domain change: the hostname; an account change: the account id. */
    ref: text("ref"),
    at: ts("at").notNull().defaultNow(),
    xid: xid8("xid")
      .notNull()
      .default(sql`pg_current_xact_id()`),
  },
  (t) => [index("drop_changes_xid_idx").on(t.xid), index("drop_changes_at_idx").on(t.at)],
);
