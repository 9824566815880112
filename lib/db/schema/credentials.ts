import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { ts } from "./columns";
import { accounts } from "./drops";
import { teams } from "./teams";

// Credentials and what they grant: API keys, the OAuth server's storage, device authorisations,
// deploy and upload grants, and the Stripe events already applied.

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
    /**
     * A team key (DESIGN "Teams"): it acts for this team with its minting person's role in it,
     * looked up at every use; null for a person's own key. The key goes with the team.
     */
    teamId: text("team_id").references(() => teams.id, { onDelete: "cascade" }),
    createdAt: ts("created_at").notNull().defaultNow(),
    lastUsedAt: ts("last_used_at"),
    revokedAt: ts("revoked_at"),
  },
  (t) => [index("api_keys_account_idx").on(t.accountId), index("api_keys_team_idx").on(t.teamId)],
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
    /**
     * A grant's team (DESIGN "Teams"): the person chose on the consent page to connect the MCP
     * client as this team; its tokens act as the team while the person is a member. The grant
     * goes with the team.
     */
    teamId: text("team_id").references(() => teams.id, { onDelete: "cascade" }),
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
    /** deploy_directory's render_check: the deploy made through the grant is checked in a browser. */
    renderCheck: boolean("render_check").notNull().default(false),
    /** deploy_directory's promote: false stages the named drop's new version (not made live). */
    promote: boolean("promote").notNull().default(true),
    /** deploy_directory's alias: pointed at the new version in the same deploy. */
    alias: text("alias"),
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
