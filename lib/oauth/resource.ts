import {
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
} from "@modelcontextprotocol/server";
import type { AppContext } from "../context";
import { MCP_SCOPE, OAUTH_ROUTES } from "./paths";
import { issuerOf, mcpResource } from "./paths";

// The MCP endpoint as an OAuth protected resource (RFC 9728), with the MCP server SDK's
// resource-server helpers: the metadata document naming this app as its authorization server,
// and the 401 challenge pointing at it.

/** `BASE_URL/.well-known/oauth-protected-resource/mcp` */
export function resourceMetadataUrl(ctx: AppContext): string {
  return getOAuthProtectedResourceMetadataUrl(new URL(mcpResource(ctx)));
}

export function protectedResourceMetadata(ctx: AppContext) {
  const issuer = issuerOf(ctx);
  return buildOAuthProtectedResourceMetadata({
    oauthMetadata: {
      issuer,
      authorization_endpoint: `${issuer}${OAUTH_ROUTES.authorization}`,
      token_endpoint: `${issuer}${OAUTH_ROUTES.token}`,
      response_types_supported: ["code"],
    },
    resourceServerUrl: new URL(mcpResource(ctx)),
    scopesSupported: [MCP_SCOPE],
    resourceName: "Dropsite MCP",
    serviceDocumentationUrl: new URL(`${issuer}/docs`),
    dangerouslyAllowInsecureIssuerUrl: new URL(issuer).protocol === "http:",
  });
}

/** 401 invalid_token with `WWW-Authenticate: Bearer …, resource_metadata="…"` (RFC 6750, RFC 9728). */
export function invalidTokenChallenge(ctx: AppContext): Response {
  return bearerAuthChallengeResponse(
    new OAuthError(OAuthErrorCode.InvalidToken, "The access token is unknown, expired or revoked."),
    {
      resourceMetadataUrl: resourceMetadataUrl(ctx),
    },
  );
}
