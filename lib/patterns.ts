// Name patterns of the contract, with no dependencies, so the proxy, the schemas and the
// browser's form checks share one definition.

/** Named drop alias: ^[a-z0-9][a-z0-9-]{0,40}$ (up to 41 characters). */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,40}$/;
/** Vanity sub: 3 to 20 characters (double hyphens are refused separately). */
export const VANITY_PATTERN = /^[a-z0-9][a-z0-9-]{1,18}[a-z0-9]$/;

/** Labels under the serve domain that are never drops, and subs no account can claim. */
export const RESERVED_LABELS: ReadonlySet<string> = new Set(["www", "api", "app", "admin", "dashboard", "mail", "static", "assets", "cdn", "docs", "status", "blog"]);

/** The service's secret tokens: a prefix, `_` and 43 base64url characters (32 random bytes). */
const secretToken = (prefix: string) => new RegExp(`^${prefix}_[A-Za-z0-9_-]{43}$`);
/** An API key. */
export const API_KEY_PATTERN = secretToken("sp");
/** An anonymous drop's claim token. */
export const CLAIM_TOKEN_PATTERN = secretToken("ct");
/** A preflight's upload token (the upload targets' URLs carry it). */
export const UPLOAD_TOKEN_PATTERN = secretToken("ut");
/** A one-time deploy URL's token. */
export const DEPLOY_GRANT_TOKEN_PATTERN = secretToken("dg");
/** A SHA-256 digest as 64 lowercase hex characters: contents, and key ids (the SHA-256 of the key). */
export const SHA256_HEX_PATTERN = /^[0-9a-f]{64}$/;
