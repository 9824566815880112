import type { AppContext } from "../context";
import { listAccountGrants, revokeAccountClient } from "../db/oauth";
import { OAUTH_KEY_ID_PATTERN } from "../patterns";

export { OAUTH_KEY_ID_PATTERN };

// The clients an account has connected through OAuth, listed beside its API keys (GET /keys,
// the dashboard) and revoked the same way (DELETE /keys/{keyId}): revoking deletes the
// account's grants for that client and every code, access and refresh token issued under them.

export const OAUTH_KEY_PREFIX = "oauth_";

export interface ConnectedClient {
  keyId: string;
  kind: "oauth";
  client_name: string;
  client_uri: string | null;
  createdAt: string;
}

export async function listConnectedClients(ctx: AppContext, accountId: string): Promise<ConnectedClient[]> {
  const rows = await listAccountGrants(ctx.db, accountId, new Date());
  return rows.map((r) => ({
    keyId: `${OAUTH_KEY_PREFIX}${r.clientId}`,
    kind: "oauth",
    client_name: typeof r.clientPayload?.client_name === "string" ? r.clientPayload.client_name : r.clientId,
    client_uri: typeof r.clientPayload?.client_uri === "string" ? r.clientPayload.client_uri : null,
    createdAt: r.firstAt.toISOString(),
  }));
}

/** False when the account has no grant of that client. */
export async function revokeConnectedClient(ctx: AppContext, accountId: string, keyId: string): Promise<boolean> {
  if (!OAUTH_KEY_ID_PATTERN.test(keyId)) return false;
  return revokeAccountClient(ctx.db, accountId, keyId.slice(OAUTH_KEY_PREFIX.length));
}
