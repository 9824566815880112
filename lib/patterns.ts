// Name patterns of the contract, with no dependencies, so the proxy, the schemas and the
// browser's form checks share one definition.

/** Named drop alias: ^[a-z0-9][a-z0-9-]{0,40}$ (up to 41 characters). */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,40}$/;
/**
 * Whether a name can be given to a drop: NAME_PATTERN without "---" (which marks preview hosts,
 * `<slug>---v<N>`; a vanity host `<sub>--<name>` must never read as one).
 */
export function isDropName(name: string): boolean {
  return NAME_PATTERN.test(name) && !name.includes(PREVIEW_SEPARATOR);
}
/** Vanity sub: 3 to 20 characters (double hyphens are refused separately). */
export const VANITY_PATTERN = /^[a-z0-9][a-z0-9-]{1,18}[a-z0-9]$/;

/**
 * An alias of a drop's versions (a preview host's selector): 1 to 16 characters, letters, digits
 * and single hyphens inside; never `v` and digits only (those name versions), checked beside it.
 */
export const ALIAS_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,14}[a-z0-9])?$/;
/** A version selector of a preview host: `v` and digits (canonical or not: v01 names no version). */
export const VERSION_SELECTOR = /^v[0-9]+$/;
/** What splits a preview host's label into the drop's slug and the selector (at its last occurrence). */
export const PREVIEW_SEPARATOR = "---";

/** Whether a string is an alias name a drop may have (ALIAS_PATTERN, no "--", not a version selector). */
export function isAliasName(name: string): boolean {
  return ALIAS_PATTERN.test(name) && !name.includes("--") && !VERSION_SELECTOR.test(name);
}

/** Labels under the serve domain that are never drops, and subs no account can claim. */
export const RESERVED_LABELS: ReadonlySet<string> = new Set([
  "www",
  "api",
  "app",
  "admin",
  "dashboard",
  "mail",
  "static",
  "assets",
  "cdn",
  "docs",
  "status",
  "blog",
]);

/**
 * The prefixes of the service's secret tokens: API keys, claim tokens, upload tokens (in upload
 * targets' paths) and one-time deploy grants (in /deploy/once/{token} and its preflight).
 */
const SECRET_PREFIXES = {
  apiKey: "sp",
  claimToken: "ct",
  uploadToken: "ut",
  deployGrant: "dg",
  teamInvite: "ti",
  memberToken: "mt",
  reviewLink: "rl",
  signinToken: "si",
  shareToken: "sh",
} as const;
/** The service's secret tokens: a prefix, `_` and 43 base64url characters (32 random bytes). */
const secretToken = (prefix: string) => new RegExp(`^${prefix}_[A-Za-z0-9_-]{43}$`);
/** An API key. */
export const API_KEY_PATTERN = secretToken(SECRET_PREFIXES.apiKey);
/** An anonymous drop's claim token. */
export const CLAIM_TOKEN_PATTERN = secretToken(SECRET_PREFIXES.claimToken);
/** A preflight's upload token (the upload targets' URLs carry it). */
export const UPLOAD_TOKEN_PATTERN = secretToken(SECRET_PREFIXES.uploadToken);
/** A one-time deploy URL's token. */
export const DEPLOY_GRANT_TOKEN_PATTERN = secretToken(SECRET_PREFIXES.deployGrant);
/** A team invitation's code (single use). */
export const TEAM_INVITE_CODE_PATTERN = secretToken(SECRET_PREFIXES.teamInvite);
/** A members-only drop's one-time token (app host to drop host, 60 s). */
export const MEMBER_TOKEN_PATTERN = secretToken(SECRET_PREFIXES.memberToken);
/** A review link's token (BASE_URL/review/<token>, or Bearer on its drop's comment routes). */
export const REVIEW_LINK_PATTERN = secretToken(SECRET_PREFIXES.reviewLink);
/** An emails-only drop's one-time sign-in link's token (mailed, 15 minutes). */
export const SIGNIN_TOKEN_PATTERN = secretToken(SECRET_PREFIXES.signinToken);
/** A share link's token (a password or emails drop's URL that sets its cookie). */
export const SHARE_TOKEN_PATTERN = secretToken(SECRET_PREFIXES.shareToken);
/**
 * A path segment (decoded) that carries, or tries to carry, one of those secrets: any length
 * after the prefix, since a mistyped or truncated token is still most of a secret.
 */
export const SECRET_SEGMENT_PATTERN = new RegExp(`^(?:${Object.values(SECRET_PREFIXES).join("|")})_`);
/** A SHA-256 digest as 64 lowercase hex characters: contents, and key ids (the SHA-256 of the key). */
export const SHA256_HEX_PATTERN = /^[0-9a-f]{64}$/;

/**
 * The event types an account's webhooks receive, and what causes each: the one table the
 * outbox (lib/db/events.ts), the schemas, the docs and the MCP texts read.
 */
export const WEBHOOK_EVENTS = {
  "drop.deployed": "a new drop was deployed",
  "drop.replaced": "a drop's files were replaced (a redeploy)",
  "drop.appended": "files were added to a drop",
  "drop.rolled_back": "a retained version of a drop was made live again",
  "drop.deleted": "a drop was deleted",
  "drop.expired": "an expired drop was removed by the cleanup job",
  "drop.claimed": "an anonymous drop was claimed into the account",
  "drop.access_changed": "a drop's access (public, password or members) was changed",
  "domain.verified": "a custom domain was verified",
  "drop.disabled": "an operator disabled a drop (it answers 451; data.reason names the category)",
  "drop.enabled": "an operator enabled a disabled drop again",
  "alias.updated": "an alias of a drop was created or moved to another version",
  "alias.deleted": "an alias of a drop was deleted",
  "comment.created": "a person commented on a drop's preview (a new thread)",
  "comment.resolved": "a comment thread on a drop was resolved",
} as const;
export type WebhookEventType = keyof typeof WEBHOOK_EVENTS;
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as WebhookEventType[];
/** The key id of a client connected through OAuth: oauth_ and the client id (GET /keys, DELETE /keys/{id}). */
export const OAUTH_KEY_ID_PATTERN = /^oauth_[A-Za-z0-9_-]{1,128}$/;
/** Any key id DELETE /keys/{id} takes: an API key's SHA-256, or a connected client's. */
export const KEY_ID_PATTERN = /^(?:[0-9a-f]{64}|oauth_[A-Za-z0-9_-]{1,128})$/;

/** A domain name as an emails-only drop's list takes it: dot-separated labels, a TLD of letters (or punycode). */
const DOMAIN_PART = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;
/** The part of an address before its @: printable, no spaces, quotes, brackets or separators. */
const LOCAL_PART = /^[a-z0-9!#$%&'*+/=?^_`{|}~.-]{1,64}$/;

/** An email address in its compared form (trimmed, lower case), or null when it is not one. */
export function normalEmail(raw: string): string | null {
  const s = raw.trim().toLowerCase();
  if (s.length > 254) return null;
  const at = s.lastIndexOf("@");
  if (at <= 0) return null;
  const local = s.slice(0, at);
  const domain = s.slice(at + 1);
  return LOCAL_PART.test(local) &&
    !local.startsWith(".") &&
    !local.endsWith(".") &&
    !local.includes("..") &&
    DOMAIN_PART.test(domain)
    ? s
    : null;
}

/** An entry of an emails-only drop's list in its compared form: an address, or `@` and a domain; null when neither. */
export function normalAllowEntry(raw: string): string | null {
  const s = raw.trim().toLowerCase();
  if (s.startsWith("@")) return DOMAIN_PART.test(s.slice(1)) ? s : null;
  return normalEmail(s);
}

/**
 * Whether a list lets an address in: the address itself, or `@` and exactly its domain (not a
 * subdomain of it, not a look-alike). Both sides compare in lower case.
 */
export function allowListMatches(allow: readonly string[], email: string): boolean {
  const e = email.toLowerCase();
  const domain = `@${e.slice(e.lastIndexOf("@") + 1)}`;
  return allow.some((entry) => {
    const x = entry.toLowerCase();
    return x === e || x === domain;
  });
}
