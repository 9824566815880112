import { createHash, randomBytes } from "node:crypto";
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, expect } from "vitest";
import type { TestContext } from "./context";
import type { OauthServer } from "./oauth-server";
import { registerSecret } from "./secrets";

// An OAuth client's small parts for tests: PKCE pairs, a cookie jar playing the browser,
// registering a public client with the app's authorization server, the browser's first leg to
// the consent page, and a suite's context with the authorization server on a loopback port.

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

/**
 * The suite's test context (tests/support/context.ts, BASE_URL on a spare loopback port) and the
 * app's OAuth surface on that port (tests/support/oauth-server.ts), opened in beforeAll and
 * closed in afterAll. `t` and `app` stand for them once opened: use them in hooks and tests.
 */
export function oauthSuite(): { t: TestContext; app: OauthServer; url: (path: string) => string } {
  let opened: { t: TestContext; app: OauthServer } | undefined;
  beforeAll(async () => {
    // Loaded here: the browser tests that import this file need neither the routes nor a context.
    const { freePort, startOauthServer } = await import("./oauth-server");
    const { makeTestContext } = await import("./context");
    const port = await freePort();
    const t = await makeTestContext({ BASE_URL: `http://localhost:${port}` });
    opened = { t, app: await startOauthServer(port) };
  });
  afterAll(async () => {
    await opened?.app.close();
    await opened?.t.close();
  });
  const get = (): { t: TestContext; app: OauthServer } => {
    if (!opened) throw new Error("The OAuth suite opens in beforeAll: use it in hooks and tests.");
    return opened;
  };
  const standIn = <K extends "t" | "app">(key: K) =>
    new Proxy({} as { t: TestContext; app: OauthServer }[K], { get: (_, p) => Reflect.get(get()[key], p) });
  return { t: standIn("t"), app: standIn("app"), url: (path) => `${get().app.baseUrl}${path}` };
}

/**
 * The browser's first leg: the authorization URL answers 303 to the consent page. The cookies it
 * set, the interaction's uid and the PKCE verifier of the request.
 */
export async function startAuthorization(
  base: string,
  clientId: string,
  redirectUri: string,
): Promise<{ jar: CookieJar; uid: string; verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const jar = new CookieJar();
  const res = await fetch(authorizationUrl(base, clientId, redirectUri, challenge), { redirect: "manual" });
  expect(res.status).toBe(303);
  jar.take(res);
  const location = res.headers.get("location")!;
  const m = /\/dashboard\/connect\/([^/?]+)$/.exec(location);
  expect(m, location).not.toBeNull();
  return { jar, uid: m![1]!, verifier };
}

/** A raw MCP initialize with an OAuth access token as the bearer: the answer as it came (a refused token is 401 before JSON-RPC). */
export function initializeMcp(base: string, access: string): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${access}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
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
