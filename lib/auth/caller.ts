import { ApiError, authRequired, upstreamUnavailable } from "../errors";
import type { AppContext } from "../context";
import type { AccountRow } from "../db/schema";
import { findLiveKey, touchKey, upsertAccount } from "../db/accounts";
import { newId, sha256Hex } from "../ids";
import { API_KEY_PATTERN } from "../patterns";
import { isStorableClaim } from "../input";
import { withDb } from "../db/errors";
import { looksLikeJwt, trustedIssuers, verifyIdToken } from "./id-token";
import { findAccount } from "../db/accounts";
import { ACCESS_TOKEN_PATTERN, verifyAccessToken } from "../oauth/tokens";
import { refuseSuspended } from "./suspended";
import { findOauthGrantTeam } from "../db/oauth";
import { actAsTeam } from "../teams/acting";
import { findMemberRole } from "../db/teams";
import type { TeamRole } from "../schemas";

function teamKeyElsewhere(): ApiError {
  return new ApiError("forbidden", "A team key works only on its team's /teams routes and on /keys for now.", {
    hint: "Use your own key for your drops and the other account routes.",
    docs: "teams",
  });
}

// Who is calling. A Bearer credential is an sp_ API key, an identity-provider ID token or, on
// the MCP endpoint only, an OAuth access token of the MCP resource (lib/oauth); unknown, revoked
// and malformed credentials are indistinguishable (401 auth_required).

/**
 * The resource a credential is presented to. An OAuth access token's audience is BASE_URL/mcp
 * (the person consented to an MCP connection), so the REST API refuses it as it refuses any
 * unknown credential (RFC 8707's audience rule); API keys and ID tokens work on both.
 */
export type CredentialAudience = "mcp" | "rest" | "team";

/** The MCP endpoint's path (the resource of lib/oauth/paths.ts's mcpResource). */
const MCP_PATH = "/mcp";

/**
 * The resource a request names: the MCP endpoint, the routes a team key may call (its team's
 * /teams/{team}/… routes and /keys), or the rest of the REST API.
 */
export function audienceOf(req: Request): CredentialAudience {
  const pathname = URL.parse(req.url)?.pathname;
  if (pathname === MCP_PATH) return "mcp";
  return pathname !== undefined && TEAM_KEY_PATHS.test(pathname) ? "team" : "rest";
}

/** Where a team key works until teams own drops and the other resources (DESIGN "Teams"). */
const TEAM_KEY_PATHS = /^\/(?:teams\/[^/]+(?:\/.*)?|keys(?:\/[^/]+)?)$/;

export interface Caller {
  account: AccountRow | null;
  /** How the caller proved who they are. */
  via: "anonymous" | "api_key" | "id_token" | "session" | "deploy_grant" | "oauth";
  /** Stable key for per-credential rate limits. */
  credentialKey: string;
  /** A team key's team and the minting person's role in it now (lib/teams/access.ts reads it). */
  team?: { id: string; role: TeamRole };
  /**
   * When the caller acts as a team (lib/teams/acting.ts), the person behind it: `account` is
   * then the team's account, and the audit and webhook bodies name this person.
   */
  actor?: AccountRow;
}

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
  if (caller) refuseSuspended(caller.actor ?? caller.account);
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
    const caller: Caller = { account: found.account, via: "api_key", credentialKey: `key:${keyId}` };
    const teamId = found.key.teamId;
    if (teamId === null) return caller;
    // A team key carries its person's role in the team as it is now: gone with the membership.
    const role = await withDb(() => findMemberRole(ctx.db, teamId, found.account.id));
    if (!role) return null;
    if (audience !== "team") throw teamKeyElsewhere();
    return { ...caller, team: { id: teamId, role } };
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

/** Routes that also work anonymously: no Authorization header → anonymous; a bad one → 401. */
export async function optionalCaller(ctx: AppContext, req: Request): Promise<Caller> {
  const credential = bearerCredential(req);
  if (credential === undefined) return anonymousCaller;
  if (credential === null) throw authRequired();
  const caller = await callerFromCredential(ctx, credential, audienceOf(req));
  if (!caller) throw authRequired();
  return caller;
}

/** Account routes: a valid credential is required. */
export async function requireCaller(ctx: AppContext, req: Request): Promise<Caller & { account: AccountRow }> {
  const caller = await optionalCaller(ctx, req);
  if (!caller.account) throw authRequired();
  return caller as Caller & { account: AccountRow };
}
