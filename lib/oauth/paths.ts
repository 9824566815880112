import type { AppContext } from "../context";

// Where the authorization server answers (paths on BASE_URL, the issuer), without loading it:
// the OpenAPI document and the resource metadata name these.

export const OAUTH_ROUTES = {
  authorization: "/api/oauth/authorize",
  token: "/api/oauth/token",
  registration: "/api/oauth/register",
  revocation: "/api/oauth/revoke",
  jwks: "/api/oauth/jwks",
  end_session: "/api/oauth/logout",
  userinfo: "/api/oauth/userinfo",
  introspection: "/api/oauth/introspect",
  pushed_authorization_request: "/api/oauth/par",
  device_authorization: "/api/oauth/device",
  code_verification: "/api/oauth/device/verify",
  backchannel_authentication: "/api/oauth/backchannel",
  challenge: "/api/oauth/challenge",
} as const;

/** Where the provider's discovery document is answered (the handler maps this path onto it). */
export const AS_METADATA_PATH = "/.well-known/oauth-authorization-server";
/** The provider's own name for that document. */
export const PROVIDER_DISCOVERY_PATH = "/.well-known/openid-configuration";
/** The consent page of an interaction. */
export const CONSENT_PATH = "/dashboard/connect";
/** The one scope: use the MCP tools as the account. */
export const MCP_SCOPE = "mcp";

/** The issuer: BASE_URL's origin (no path). */
export function issuerOf(ctx: AppContext): string {
  return new URL(ctx.env.BASE_URL).origin;
}

/** The MCP endpoint as a resource indicator: the audience of every access token. */
export function mcpResource(ctx: AppContext): string {
  return `${issuerOf(ctx)}/mcp`;
}
