import type { AppContext } from "../context";
import { MCP_SCOPE, mcpResource } from "./paths";
import { withDb } from "../db/errors";
import { setOauthGrantTeam } from "../db/oauth";
import { findTeamFor } from "../db/teams";
import { OAUTH_COOKIES, OIDC_SCOPES, oauthProvider } from "./provider";

// The person's side of an authorization request: the dashboard's consent page loads the
// pending interaction (only in the browser that started it: its interaction cookie names it),
// shows which client asks, and the person's approve or deny finishes it. Login and consent are
// one step: the dashboard session is the login.

export const INTERACTION_COOKIE = OAUTH_COOKIES.interaction;

export interface ConsentRequest {
  uid: string;
  clientId: string;
  /** The registered client_name (or the client id when it gave none). */
  clientName: string;
  clientUri: string | null;
  /** Where the browser goes after the decision (the client's redirect URI, without query). */
  redirectTo: string;
}

export type ConsentLookup =
  { ok: true; request: ConsentRequest } | { ok: false; reason: "not_found" | "other_browser" | "other_account" };

async function pending(ctx: AppContext, uid: string, cookieValue: string | undefined, accountId: string) {
  const provider = await oauthProvider(ctx);
  const interaction = await provider.Interaction.find(uid);
  if (!interaction) return { provider, failure: "not_found" as const };
  // The interaction cookie (path-scoped to this page) proves this browser started the request.
  if (cookieValue !== uid) return { provider, failure: "other_browser" as const };
  if (interaction.session?.accountId && interaction.session.accountId !== accountId)
    return { provider, failure: "other_account" as const };
  return { provider, interaction };
}

/** The pending request for the consent page. */
export async function loadConsent(
  ctx: AppContext,
  uid: string,
  cookieValue: string | undefined,
  accountId: string,
): Promise<ConsentLookup> {
  const found = await pending(ctx, uid, cookieValue, accountId);
  if (!found.interaction) return { ok: false, reason: found.failure };
  const clientId = String(found.interaction.params.client_id ?? "");
  const client = await found.provider.Client.find(clientId);
  if (!client) return { ok: false, reason: "not_found" };
  const { redirect_uri: redirectUri } = found.interaction.params;
  const redirect = typeof redirectUri === "string" ? URL.parse(redirectUri) : null;
  return {
    ok: true,
    request: {
      uid,
      clientId,
      clientName: client.clientName ?? clientId,
      clientUri: client.clientUri ?? null,
      redirectTo: redirect ? `${redirect.origin}${redirect.pathname}` : "",
    },
  };
}

/**
 * Records the person's decision and answers where the browser goes next (the authorization
 * endpoint, which then redirects to the client with a code, or with error=access_denied), or
 * null when the request is gone or not this browser's.
 */
export async function decideConsent(
  ctx: AppContext,
  uid: string,
  cookieValue: string | undefined,
  accountId: string,
  approve: boolean,
  teamSlug = "",
): Promise<string | null> {
  const found = await pending(ctx, uid, cookieValue, accountId);
  if (!found.interaction) return null;
  const { interaction, provider } = found;
  // The account the connection acts for: the person (""), or one of their teams by slug.
  const team = teamSlug === "" ? null : await withDb(() => findTeamFor(ctx.db, teamSlug, accountId));
  if (team && !team.role) return null;
  if (team === undefined) return null;
  if (!approve) {
    interaction.result = { error: "access_denied", error_description: "The person denied the request." };
  } else {
    const clientId = String(interaction.params.client_id ?? "");
    const grant = new provider.Grant({ accountId, clientId });
    // The scopes the request asks for (the provider drops unknown ones before this), and always
    // the MCP resource's one scope. At a login prompt the details name no scopes yet, so the
    // request's own parameter counts.
    const { missingOIDCScope } = interaction.prompt.details;
    const requested =
      typeof interaction.params.scope === "string" ? interaction.params.scope.split(" ").filter(Boolean) : [];
    const scopes = new Set([...requested, ...(missingOIDCScope ?? [])].filter((x) => OIDC_SCOPES.includes(x)));
    if (scopes.size > 0) grant.addOIDCScope([...scopes].join(" "));
    grant.addResourceScope(mcpResource(ctx), MCP_SCOPE);
    const grantId = await grant.save();
    if (team) await withDb(() => setOauthGrantTeam(ctx.db, grantId, team.team.id));
    interaction.result = { login: { accountId }, consent: { grantId } };
  }
  await interaction.save(Math.max(1, interaction.exp - Math.floor(Date.now() / 1000)));
  return interaction.returnTo;
}
