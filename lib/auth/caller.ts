import { authRequired, upstreamUnavailable } from "../errors";
import type { AppContext } from "../context";
import type { AccountRow } from "../db/schema";
import { findLiveKey, touchKey, upsertAccount } from "../db/accounts";
import { newId, sha256Hex } from "../ids";
import { API_KEY_PATTERN } from "../patterns";
import { looksLikeJwt, trustedIssuers, verifyIdToken } from "./id-token";

// Who is calling. A Bearer credential is an sp_ API key or an identity-provider ID token;
// unknown, revoked and malformed credentials are indistinguishable (401 auth_required).

export interface Caller {
  account: AccountRow | null;
  /** How the caller proved who they are. */
  via: "anonymous" | "api_key" | "id_token" | "session";
  /** Stable key for per-credential rate limits. */
  credentialKey: string;
}

export const anonymousCaller: Caller = { account: null, via: "anonymous", credentialKey: "anonymous" };

function bearer(req: Request): string | null | undefined {
  const header = req.headers.get("authorization");
  if (header === null) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? (m[1] ?? null) : null;
}

/** Resolves a credential string to a caller, or null when it is not accepted. */
export async function callerFromCredential(ctx: AppContext, credential: string): Promise<Caller | null> {
  const now = new Date(ctx.now());
  if (credential.startsWith("sp_")) {
    if (!API_KEY_PATTERN.test(credential)) return null;
    const keyId = sha256Hex(credential);
    let found;
    try {
      found = await findLiveKey(ctx.db, keyId);
      if (found) await touchKey(ctx.db, keyId, now);
    } catch (err) {
      throw upstreamUnavailable("database", err);
    }
    return found ? { account: found.account, via: "api_key", credentialKey: `key:${keyId}` } : null;
  }
  if (!looksLikeJwt(credential)) return null;
  let identity;
  try {
    identity = await verifyIdToken(credential, trustedIssuers(ctx.env), now);
  } catch (err) {
    throw upstreamUnavailable("identity provider", err);
  }
  if (!identity) return null;
  try {
    const account = await upsertAccount(ctx.db, { id: `acc_${newId().replace(/-/g, "")}`, issuer: identity.issuer, subject: identity.subject, email: identity.email });
    return { account, via: "id_token", credentialKey: `sub:${sha256Hex(`${identity.issuer} ${identity.subject}`)}` };
  } catch (err) {
    throw upstreamUnavailable("database", err);
  }
}

/** Routes that also work anonymously: no Authorization header → anonymous; a bad one → 401. */
export async function optionalCaller(ctx: AppContext, req: Request): Promise<Caller> {
  const credential = bearer(req);
  if (credential === undefined) return anonymousCaller;
  if (credential === null) throw authRequired();
  const caller = await callerFromCredential(ctx, credential);
  if (!caller) throw authRequired();
  return caller;
}

/** Account routes: a valid credential is required. */
export async function requireCaller(ctx: AppContext, req: Request): Promise<Caller & { account: AccountRow }> {
  const caller = await optionalCaller(ctx, req);
  if (!caller.account) throw authRequired();
  return caller as Caller & { account: AccountRow };
}
