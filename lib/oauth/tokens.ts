import type { AppContext } from "../context";
import { mcpResource } from "./paths";

// Access tokens on /mcp: opaque values the authorization server issued, looked up on each
// request (so a revoked client or an expired token stops at once), for the MCP resource only,
// under a grant that still exists for the same account and client.

/** What an oidc-provider opaque access token looks like (43 base64url characters, 256 bits). */
export const ACCESS_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface VerifiedAccessToken {
  accountId: string;
  clientId: string;
  grantId: string;
  /** Epoch seconds. */
  expiresAt: number;
  scopes: string[];
}

/** The token's account and client, or null when it is unknown, expired, revoked or for another resource. */
export async function verifyAccessToken(ctx: AppContext, token: string): Promise<VerifiedAccessToken | null> {
  if (!ACCESS_TOKEN_PATTERN.test(token)) return null;
  // Loaded on first use: the data plane's bundle reaches this module but rarely sees a token.
  const { oauthProvider } = await import("./provider");
  const provider = await oauthProvider(ctx);
  const at = await provider.AccessToken.find(token);
  if (!at) return null;
  const audiences = Array.isArray(at.aud) ? at.aud : [at.aud];
  if (!audiences.includes(mcpResource(ctx))) return null;
  const grant = await provider.Grant.find(at.grantId);
  if (!grant || grant.accountId !== at.accountId || grant.clientId !== at.clientId) return null;
  return {
    accountId: at.accountId,
    clientId: at.clientId,
    grantId: at.grantId,
    expiresAt: at.exp,
    scopes: (at.scope ?? "").split(" ").filter(Boolean),
  };
}
