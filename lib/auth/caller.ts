import { authRequired, upstreamUnavailable } from "../errors";
import type { AppContext } from "../context";
import type { AccountRow } from "../db/schema";
import type { Caller } from "./caller-types";
import { findLiveKey, touchKey, upsertAccount } from "../db/accounts";
import { newId, sha256Hex } from "../ids";
import { API_KEY_PATTERN } from "../patterns";
import { isStorableClaim } from "../input";
import { withDb } from "../db/errors";
import { looksLikeJwt, trustedIssuers, verifyIdToken } from "./id-token";
import { findAccount } from "../db/accounts";
import { ACCESS_TOKEN_PATTERN, verifyAccessToken } from "../oauth/tokens";
import { refuseSuspendedCaller } from "./suspended";
import { teamAccountId } from "../db/teams";
import { findOauthGrantTeam } from "../db/oauth";
import { actAsTeam, noteActing } from "../teams/acting";
import { checkGate, routeGate } from "../teams/gates";

// Who is calling. A Bearer credential is an sp_ API key, an identity-provider ID token or, on
// the MCP endpoint only, an OAuth access token of the MCP resource (lib/oauth); unknown, revoked
// and malformed credentials are indistinguishable (401 auth_required).

/**
 * The resource a credential is presented to. An OAuth access token's audience is BASE_URL/mcp
 * (the person consented to an MCP connection), so the REST API refuses it as it refuses any
 * unknown credential (RFC 8707's audience rule); API keys and ID tokens work on both.
 */
export type CredentialAudience = "mcp" | "rest";

/** The MCP endpoint's path (the resource of lib/oauth/paths.ts's mcpResource). */
const MCP_PATH = "/mcp";

/** The resource a request names: the MCP endpoint or the REST API. */
export function audienceOf(req: Request): CredentialAudience {
  return URL.parse(req.url)?.pathname === MCP_PATH ? "mcp" : "rest";
}

export type { Caller } from "./caller-types";

export const anonymousCaller: Caller = { account: null, via: "anonymous", credentialKey: "anonymous" };

/**
 * The one parser of the Authorization header: undefined when absent, null when malformed, else
 * the Bearer credential. Two Authorization headers arrive joined by ", " (the Fetch API joins
 * repeated headers; the listener joins them too) and are one bad request: null, so 401.
 */
export function bearerCredential(req: Request): string | null | undefined {
  const header = req.headers.get("authorization");
  if (header === null) return undefined;
  if (header.includes(",")) return null;
  const m = /^Bearer[ \t]+([^\s,]+)[ \t]*$/i.exec(header);
  return m ? (m[1] ?? null) : null;
}

/**
 * Resolves a credential string presented to `audience` to a caller, or null when it is not
 * accepted there; a suspended account's credential is refused (403 forbidden).
 */
export async function callerFromCredential(
  ctx: AppContext,
  credential: string,
  audience: CredentialAudience,
): Promise<Caller | null> {
  const caller = await resolveCredential(ctx, credential, audience);
  if (caller) refuseSuspendedCaller(caller);
  return caller;
}

async function resolveCredential(
  ctx: AppContext,
  credential: string,
  audience: CredentialAudience,
): Promise<Caller | null> {
  const now = new Date(ctx.now());
  if (credential.startsWith("sp_")) {
    if (!API_KEY_PATTERN.test(credential)) return null;
    const keyId = sha256Hex(credential);
    const found = await withDb(async () => {
      const row = await findLiveKey(ctx.db, keyId);
      if (row) await touchKey(ctx.db, keyId, now);
      return row;
    });
    if (!found) return null;
    const caller = { account: found.account, via: "api_key" as const, credentialKey: `key:${keyId}` };
    const teamId = found.key.teamId;
    if (teamId === null) return caller;
    // A team key acts as the team with its person's role as it is now: gone with the membership.
    return actAsTeam(ctx, caller, { id: teamId, accountId: teamAccountId(teamId) });
  }
  if (isOauthAccessToken(credential)) {
    if (audience !== "mcp") return null;
    const token = await withDb(() => verifyAccessToken(ctx, credential));
    const account = token ? await withDb(() => findAccount(ctx.db, token.accountId)) : undefined;
    if (!account || !token) return null;
    const person: Caller & { account: AccountRow } = { account, via: "oauth", credentialKey: `oauth:${token.grantId}` };
    // Consented for a team: acts as it with the person's role as it is now (gone with the membership).
    const team = await withDb(() => findOauthGrantTeam(ctx.db, token.grantId));
    return team ? actAsTeam(ctx, person, team) : person;
  }
  if (!looksLikeJwt(credential)) return null;
  let identity;
  try {
    identity = await verifyIdToken(credential, trustedIssuers(ctx.env), now);
  } catch (err) {
    throw upstreamUnavailable("identity provider", err);
  }
  // A subject or email the database cannot store (NUL, control characters, too long) is not an identity we accept.
  if (!identity || !isStorableClaim(identity.subject) || (identity.email !== null && !isStorableClaim(identity.email)))
    return null;
  const account = await withDb(() =>
    upsertAccount(ctx.db, {
      id: `acc_${newId().replace(/-/g, "")}`,
      issuer: identity.issuer,
      subject: identity.subject,
      email: identity.email,
      emailVerified: identity.emailVerified,
    }),
  );
  return { account, via: "id_token", credentialKey: `sub:${sha256Hex(`${identity.issuer} ${identity.subject}`)}` };
}

/** An OAuth access token by its form (neither an API key nor a JWT). */
export function isOauthAccessToken(credential: string): boolean {
  return !credential.startsWith("sp_") && ACCESS_TOKEN_PATTERN.test(credential);
}

/**
 * Routes that also work anonymously: no Authorization header → anonymous; a bad one → 401. A
 * caller acting as a team passes the route's gate (lib/teams/gates.ts) before anything else.
 */
export async function optionalCaller(ctx: AppContext, req: Request): Promise<Caller> {
  const credential = bearerCredential(req);
  if (credential === undefined) return anonymousCaller;
  if (credential === null) throw authRequired();
  const caller = await callerFromCredential(ctx, credential, audienceOf(req));
  if (!caller) throw authRequired();
  if (caller.actor) {
    checkGate(caller, routeGate(req.method, URL.parse(req.url)?.pathname ?? ""));
    noteActing(caller);
  }
  return caller;
}

/** Account routes: a valid credential is required. */
export async function requireCaller(ctx: AppContext, req: Request): Promise<Caller & { account: AccountRow }> {
  const caller = await optionalCaller(ctx, req);
  if (!caller.account) throw authRequired();
  return caller as Caller & { account: AccountRow };
}
