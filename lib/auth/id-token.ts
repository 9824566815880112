import {
  createRemoteJWKSet,
  decodeJwt,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from "jose";
import { LRUCache } from "lru-cache";
import type { Env } from "../env";

// ID tokens are verified by the service itself: RS256 only, against the published key set of a
// configured provider (OIDC discovery from OIDC_ISSUER; Google's JWKS when GOOGLE_CLIENT_ID is
// set), issuer and audience checked, expiry enforced, at most an hour old.

export interface TrustedIssuer {
  issuers: string[];
  audiences: string[];
  jwks: () => Promise<JWTVerifyGetKey>;
}

export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  /** The provider vouches for the email (email_verified: true); only then can ADMIN_EMAILS name it. */
  emailVerified: boolean;
}

const GOOGLE_ISSUERS = ["https://accounts.google.com", "accounts.google.com"];
const GOOGLE_JWKS = "https://www.googleapis.com/oauth2/v3/certs";

/** How long a key set is used before its source is read again (jose refetches rotated keys itself). */
const KEY_SET_TTL_MS = 24 * 3600 * 1000;
/** After a failed rediscovery, the key set it had is used this long before the next try. */
const REDISCOVERY_RETRY_MS = 60 * 1000;
const DISCOVERY_TIMEOUT_MS = 5000;

/**
 * Key sets by source, `oidc <issuer>` (from its discovery document) or `jwks <url>` (a fixed URL,
 * Google's): each made once a day at most, so jose's own key cache lives across requests and
 * concurrent first requests share one discovery. A failed discovery is not kept (the next token
 * tries again); a failed rediscovery keeps the key set it had. Per module copy (self-hosted, the
 * data plane's bundle and Next's each have one): a key set fetched once more by the other copy
 * is all that costs, so it stays off globalThis.
 */
const keySets = new LRUCache<string, JWTVerifyGetKey>({
  max: 16,
  ttl: KEY_SET_TTL_MS,
  fetchMethod: async (source, previous, { signal, options }) => {
    const at = source.slice(source.indexOf(" ") + 1);
    if (source.startsWith("jwks ")) return createRemoteJWKSet(new URL(at));
    try {
      return await discover(at, AbortSignal.any([signal, AbortSignal.timeout(DISCOVERY_TIMEOUT_MS)]));
    } catch (err) {
      if (!previous) throw err;
      console.error(`[auth] ${err instanceof Error ? err.message : String(err)}; the key set it had is kept`);
      options.ttl = REDISCOVERY_RETRY_MS;
      return previous;
    }
  },
});

async function discover(issuer: string, signal: AbortSignal): Promise<JWTVerifyGetKey> {
  const res = await fetch(`${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`, { signal });
  if (!res.ok) throw new Error(`OIDC discovery of ${issuer} answered ${res.status}`);
  const doc = (await res.json()) as { jwks_uri?: string };
  if (!doc.jwks_uri) throw new Error(`OIDC discovery of ${issuer} has no jwks_uri`);
  return createRemoteJWKSet(new URL(doc.jwks_uri));
}

/** The key set of a source, from memory or made now. */
function keySet(source: string): () => Promise<JWTVerifyGetKey> {
  return async () => {
    const jwks = await keySets.fetch(source);
    if (!jwks) throw new Error(`no key set from ${source}`);
    return jwks;
  };
}

export function trustedIssuers(e: Env): TrustedIssuer[] {
  const out: TrustedIssuer[] = [];
  if (e.OIDC_ISSUER && e.OIDC_CLIENT_ID) {
    out.push({
      issuers: [e.OIDC_ISSUER],
      audiences: [e.OIDC_CLIENT_ID, ...e.ID_TOKEN_AUDIENCES],
      jwks: keySet(`oidc ${e.OIDC_ISSUER}`),
    });
  }
  if (e.GOOGLE_CLIENT_ID) {
    out.push({
      issuers: GOOGLE_ISSUERS,
      audiences: [e.GOOGLE_CLIENT_ID, ...e.ID_TOKEN_AUDIENCES],
      jwks: keySet(`jwks ${GOOGLE_JWKS}`),
    });
  }
  return out;
}

/** Whether a credential has the shape of a JWT (three base64url parts). */
export function looksLikeJwt(credential: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(credential);
}

/**
 * Verifies an ID token; null when it is not acceptable for any reason (the caller answers
 * 401 without saying which). Throws only when a provider's key set cannot be reached.
 */
export async function verifyIdToken(
  token: string,
  issuers: TrustedIssuer[],
  now: Date,
): Promise<VerifiedIdentity | null> {
  let claims: JWTPayload;
  try {
    claims = decodeJwt(token);
  } catch {
    return null;
  }
  const trusted = issuers.find((i) => typeof claims.iss === "string" && i.issuers.includes(claims.iss));
  if (!trusted) return null;
  const jwks = await trusted.jwks();
  try {
    const { payload } = await jwtVerify(token, jwks, {
      algorithms: ["RS256"],
      issuer: trusted.issuers,
      audience: trusted.audiences,
      requiredClaims: ["exp", "iat", "sub"],
      maxTokenAge: "1h",
      clockTolerance: 30,
      currentDate: now,
    });
    if (typeof payload.sub !== "string" || !payload.sub || typeof payload.iss !== "string") return null;
    const email = typeof payload.email === "string" ? payload.email : null;
    return {
      issuer: trusted.issuers[0] ?? payload.iss,
      subject: payload.sub,
      email,
      emailVerified: email !== null && payload.email_verified === true,
    };
  } catch (err) {
    if (err instanceof joseErrors.JOSEError && !(err instanceof joseErrors.JWKSTimeout)) return null;
    throw err;
  }
}
