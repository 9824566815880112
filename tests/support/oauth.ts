import { createHash, randomBytes } from "node:crypto";
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { registerSecret } from "./secrets";

// An OAuth client's small parts for tests: PKCE pairs, a cookie jar playing the browser, and
// registering a public client with the app's authorization server.

/** A PKCE pair (RFC 7636, S256). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** A browser's cookies for one host (paths ignored: every cookie goes with every request). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === "" || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/**
 * POST /api/oauth/register (RFC 7591) of a public client as MCP clients register, `fields`
 * added or put in place (undefined leaves one out): the answer as it came.
 */
export function postRegistration(
  base: string,
  name: string,
  redirectUri: string,
  fields: Record<string, unknown> = {},
): Promise<Response> {
  return fetch(`${base}/api/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      ...fields,
    }),
  });
}

/** Registers a public client (RFC 7591) and answers its client_id. */
export async function registerClient(
  base: string,
  name: string,
  redirectUri: string,
  fields: Record<string, unknown> = {},
): Promise<string> {
  const res = await postRegistration(base, name, redirectUri, fields);
  if (res.status !== 201) throw new Error(`registration answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

/** The authorization URL of a code request with PKCE S256 for the MCP resource. */
export function authorizationUrl(base: string, clientId: string, redirectUri: string, challenge: string): string {
  const q = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "mcp",
    state: "st4te",
    resource: `${base}/mcp`,
  });
  return `${base}/api/oauth/authorize?${q}`;
}

/** The connector's side: what a platform keeps per user, in memory. */
export class ConnectorProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  private info: StoredOAuthClientInformation | undefined;
  private stored: StoredOAuthTokens | undefined;
  private verifier = "";
  constructor(
    private readonly redirect: string,
    private readonly name = "E2E Connector",
  ) {}
  get redirectUrl(): string {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.info = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    registerSecret("oauth access token", tokens.access_token);
    if (tokens.refresh_token) registerSecret("oauth refresh token", tokens.refresh_token);
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}
