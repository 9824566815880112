import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { accountWithKey, bearer } from "../support/accounts";
import { auth } from "@modelcontextprotocol/client";
import {
  ConnectorProvider,
  CookieJar,
  oauthSuite,
  pkcePair,
  postRegistration,
  registerClient,
  startAuthorization,
  initializeMcp,
} from "../support/oauth";
import { connectHttp } from "../support/mcp";
import { decideConsent, INTERACTION_COOKIE } from "@/lib/oauth/consent";
import { oauthModels } from "@/lib/db/schema";
import { sha256Hex } from "@/lib/ids";
import { credentialRowId } from "@/lib/oauth/adapter";
import { registerSecret } from "../support/secrets";
import * as keysRoute from "@/app/keys/route";
import * as keyRoute from "@/app/keys/[id]/route";
import * as deployRoute from "@/app/deploy/route";
import * as dropsRoute from "@/app/drops/route";
import * as versionsRoute from "@/app/drops/[slug]/versions/route";
import * as limitsRoute from "@/app/limits/route";
import * as onceRoute from "@/app/deploy/once/[token]/route";

// The MCP authorization flow over HTTP against the app's own authorization server: discovery
// (RFC 9728, RFC 8414), dynamic registration (RFC 7591), authorization code with PKCE S256
// (RFC 7636), the consent decision, the token endpoint, refresh, and the bearer on /mcp; and
// each failure the RFCs name.

const { t, app, url } = oauthSuite();
const REDIRECT = "http://127.0.0.1:43210/callback";

/** A registration as MCP clients send it (scope mcp), `body` added or put in place. */
const register = (body: Record<string, unknown> = {}) =>
  postRegistration(app.baseUrl, "Test Agent", REDIRECT, { scope: "mcp", ...body });

const newClient = (name = "Test Agent") => registerClient(app.baseUrl, name, REDIRECT, { scope: "mcp" });

/** An account's drop of one page, deployed with its API key; its slug. */
async function deployWith(apiKey: string, html: string, ip: string): Promise<string> {
  const deployed = await deployRoute.POST(
    new Request(url("/deploy"), {
      method: "POST",
      headers: { ...bearer(apiKey), "content-type": "application/json", "x-dropsite-socket-ip": ip },
      body: JSON.stringify({ files: { "index.html": html } }),
    }),
    { params: Promise.resolve({}) },
  );
  expect(deployed.status).toBe(200);
  return ((await deployed.json()) as { slug: string }).slug;
}

interface Started {
  jar: CookieJar;
  uid: string;
  verifier: string;
}

async function authorize(clientId: string, params: Record<string, string> = {}): Promise<Response> {
  const { challenge } = pkcePair();
  const q = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "mcp",
    state: "st4te",
    resource: `${app.baseUrl}/mcp`,
    ...params,
  });
  // An empty value leaves the parameter out.
  for (const [k, v] of Object.entries(params)) if (v === "") q.delete(k);
  return fetch(url(`/api/oauth/authorize?${q}`), { redirect: "manual" });
}

/** The browser's first leg: the authorization URL sends it to the consent page. */
const start = (clientId: string): Promise<Started> => startAuthorization(app.baseUrl, clientId, REDIRECT);

/** The person decides; the browser follows back through the authorization endpoint to the client. */
async function decide(s: Started, accountId: string, approve: boolean): Promise<URL> {
  const returnTo = await decideConsent(t.ctx, s.uid, s.jar.get(INTERACTION_COOKIE), accountId, approve);
  expect(returnTo).toBeTruthy();
  const res = await fetch(new URL(returnTo!, app.baseUrl), { redirect: "manual", headers: { cookie: s.jar.header() } });
  expect(res.status, await res.clone().text()).toBe(303);
  return new URL(res.headers.get("location")!, app.baseUrl);
}

async function token(body: Record<string, string>): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url("/api/oauth/token"), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function codeFor(clientId: string, accountId: string): Promise<{ code: string; verifier: string }> {
  const s = await start(clientId);
  const back = await decide(s, accountId, true);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  expect(back.searchParams.get("state")).toBe("st4te");
  return { code: back.searchParams.get("code")!, verifier: s.verifier };
}

async function exchange(clientId: string, code: string, verifier: string) {
  return token({
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
    resource: `${app.baseUrl}/mcp`,
  });
}

async function tokensFor(clientId: string, accountId: string): Promise<{ access: string; refresh: string }> {
  const { code, verifier } = await codeFor(clientId, accountId);
  const r = await exchange(clientId, code, verifier);
  expect(r.status).toBe(200);
  const access = r.json.access_token as string;
  const refresh = r.json.refresh_token as string;
  registerSecret("oauth access token", access);
  registerSecret("oauth refresh token", refresh);
  return { access, refresh };
}

const mcpClient = (access: string) => connectHttp(app.baseUrl, { credential: access });

/** A raw tools/call of list_drops (legacy framing is not needed: the 401 comes before JSON-RPC). */
const rawMcp = (access: string) => initializeMcp(app.baseUrl, access);

function expectChallenge(res: Response): void {
  expect(res.status).toBe(401);
  const challenge = res.headers.get("www-authenticate") ?? "";
  expect(challenge).toMatch(/^Bearer /);
  expect(challenge).toContain('error="invalid_token"');
  expect(challenge).toContain(`resource_metadata="${app.baseUrl}/.well-known/oauth-protected-resource/mcp"`);
}

describe("discovery", () => {
  it("the protected-resource metadata names the MCP URL and this app as its authorization server", async () => {
    const res = await fetch(url("/.well-known/oauth-protected-resource/mcp"));
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc.resource).toBe(`${app.baseUrl}/mcp`);
    expect(doc.authorization_servers).toEqual([app.baseUrl]);
    expect(doc.scopes_supported).toEqual(["mcp"]);
  });

  it("the RFC 8414 metadata: issuer BASE_URL, code only, S256 only, refresh tokens, registration", async () => {
    const res = await fetch(url("/.well-known/oauth-authorization-server"));
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc.issuer).toBe(app.baseUrl);
    expect(doc.response_types_supported).toEqual(["code"]);
    expect(doc.grant_types_supported).toEqual(["authorization_code", "refresh_token"]);
    expect(doc.code_challenge_methods_supported).toEqual(["S256"]);
    expect(doc.registration_endpoint).toBe(`${app.baseUrl}/api/oauth/register`);
    expect(doc.authorization_endpoint).toBe(`${app.baseUrl}/api/oauth/authorize`);
    expect(doc.token_endpoint).toBe(`${app.baseUrl}/api/oauth/token`);
    expect(doc.token_endpoint_auth_methods_supported).toContain("none");
  });
});

describe("registration", () => {
  it("a public client registers with token_endpoint_auth_method none", async () => {
    const res = await register();
    // Without a scope and naming only authorization_code, it still gets the refresh grant.
    const bare = await register({ scope: undefined, grant_types: ["authorization_code"] });
    expect(bare.status).toBe(201);
    expect(((await bare.json()) as { grant_types: string[] }).grant_types).toEqual([
      "authorization_code",
      "refresh_token",
    ]);
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      client_name: "Test Agent",
      token_endpoint_auth_method: "none",
      redirect_uris: [REDIRECT],
    });
    expect(body.client_secret).toBeUndefined();
  });

  it.each([
    ["http://agent.example.com/cb"],
    ["https://agent.example.com/cb#frag"],
    ["ftp://127.0.0.1/cb"],
    ["http://10.0.0.1/cb"],
  ])("redirect URI %s is 400 invalid_redirect_uri", async (uri) => {
    const before = await t.ctx.db.select().from(oauthModels).where(eq(oauthModels.model, "Client"));
    const res = await register({ redirect_uris: [uri] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe("invalid_redirect_uri");
    expect(await t.ctx.db.select().from(oauthModels).where(eq(oauthModels.model, "Client"))).toHaveLength(
      before.length,
    );
  });

  it("registrations are bounded per client address: 429 rate_limited with Retry-After, and nothing stored", async () => {
    const from = { "x-dropsite-socket-ip": "198.51.100.77", "content-type": "application/json" };
    const body = JSON.stringify({
      client_name: "Flood",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
    });
    for (let i = 0; i < 50; i++)
      expect((await fetch(url("/api/oauth/register"), { method: "POST", headers: from, body })).status).toBe(201);
    const before = await t.ctx.db.select().from(oauthModels).where(eq(oauthModels.model, "Client"));
    const refused = await fetch(url("/api/oauth/register"), { method: "POST", headers: from, body });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: string }).error).toBe("rate_limited");
    expect(await t.ctx.db.select().from(oauthModels).where(eq(oauthModels.model, "Client"))).toHaveLength(
      before.length,
    );
    // Another address is not affected.
    expect((await register()).status).toBe(201);
  });

  it.each([
    ["https://agent.example.com/cb"],
    ["http://localhost:8080/cb"],
    ["http://[::1]:9/cb"],
    ["http://127.0.0.1/cb"],
  ])("redirect URI %s is accepted", async (uri) => {
    expect((await register({ redirect_uris: [uri] })).status).toBe(201);
  });
});

describe("authorization code with PKCE", () => {
  it("the full flow: consent, code, tokens, and the tools act as the account", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx);
    const slug = await deployWith(apiKey, "<h1>mine</h1>", "192.0.2.7");

    const clientId = await newClient();
    const { access, refresh } = await tokensFor(clientId, account.id);
    expect(access).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(refresh).toBeTruthy();

    const client = await mcpClient(access);
    const listed = (await client.callTool({ name: "list_drops", arguments: {} })) as {
      isError?: boolean;
      structuredContent?: { drops: { slug: string }[] };
    };
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent?.drops.map((d) => d.slug)).toEqual([slug]);
    await client.close();

    // The refresh grant gives a new access token for the same account.
    const refreshed = await token({ grant_type: "refresh_token", refresh_token: refresh, client_id: clientId });
    expect(refreshed.status).toBe(200);
    const again = await mcpClient(refreshed.json.access_token as string);
    registerSecret("oauth access token", refreshed.json.access_token as string);
    const relisted = (await again.callTool({ name: "list_drops", arguments: {} })) as {
      structuredContent?: { drops: { slug: string }[] };
    };
    expect(relisted.structuredContent?.drops.map((d) => d.slug)).toEqual([slug]);
    await again.close();

    // Tokens are stored by keyed hash only (HMAC under a key derived from the server secret).
    expect(
      await t.ctx.db
        .select()
        .from(oauthModels)
        .where(and(eq(oauthModels.model, "AccessToken"), eq(oauthModels.id, credentialRowId(t.ctx.env, access)))),
    ).toHaveLength(1);
  });

  it("codes, access and refresh tokens are stored as keyed hashes: no row holds one verbatim or under its bare SHA-256", async () => {
    const { account } = await accountWithKey(t.ctx);
    const clientId = await newClient();
    const { code, verifier } = await codeFor(clientId, account.id);
    const codeRows = await t.ctx.db.select().from(oauthModels).where(eq(oauthModels.model, "AuthorizationCode"));
    expect(codeRows.map((r) => r.id)).toContain(credentialRowId(t.ctx.env, code));
    const r = await exchange(clientId, code, verifier);
    expect(r.status).toBe(200);
    const access = r.json.access_token as string;
    const refresh = r.json.refresh_token as string;
    registerSecret("oauth access token", access);
    registerSecret("oauth refresh token", refresh);
    const rows = await t.ctx.db.select().from(oauthModels);
    const ids = new Set(rows.map((row) => row.id));
    const dump = JSON.stringify(rows);
    for (const secret of [code, access, refresh]) {
      expect(ids.has(secret)).toBe(false);
      expect(ids.has(sha256Hex(secret))).toBe(false);
      expect(dump).not.toContain(secret);
    }
    expect(ids.has(credentialRowId(t.ctx.env, access))).toBe(true);
    expect(ids.has(credentialRowId(t.ctx.env, refresh))).toBe(true);
    // The keyed hash is not the bare SHA-256, and it depends on the server secret.
    expect(credentialRowId(t.ctx.env, access)).not.toBe(sha256Hex(access));
    expect(credentialRowId({ ...t.ctx.env, NEXTAUTH_SECRET: "another-secret-of-enough-length-000" }, access)).not.toBe(
      credentialRowId(t.ctx.env, access),
    );
    expect((await rawMcp(access)).status).toBe(200);
  });

  it("a request without scope (as some MCP clients send it) gets the default scope mcp: approve gives a code, the token lists drops", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx);
    const slug = await deployWith(apiKey, "<h1>no scope</h1>", "192.0.2.8");
    const clientId = await registerClient(app.baseUrl, "Scopeless Agent", REDIRECT);
    const { verifier, challenge } = pkcePair();
    const first = await authorize(clientId, { scope: "", code_challenge: challenge });
    expect(first.status).toBe(303);
    const jar = new CookieJar();
    jar.take(first);
    const uid = /\/dashboard\/connect\/([^/?]+)$/.exec(first.headers.get("location") ?? "")?.[1];
    expect(uid).toBeTruthy();
    const back = await decide({ jar, uid: uid!, verifier }, account.id, true);
    expect(back.searchParams.get("error")).toBeNull();
    const code = back.searchParams.get("code");
    expect(code).toBeTruthy();
    const r = await exchange(clientId, code!, verifier);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect((r.json.scope as string).split(" ")).toContain("mcp");
    const access = r.json.access_token as string;
    registerSecret("oauth access token", access);
    const client = await mcpClient(access);
    const listed = (await client.callTool({ name: "list_drops", arguments: {} })) as {
      structuredContent?: { drops: { slug: string }[] };
    };
    expect(listed.structuredContent?.drops.map((d) => d.slug)).toEqual([slug]);
    await client.close();
  });

  it("deny redirects with error=access_denied and issues nothing", async () => {
    const { account } = await accountWithKey(t.ctx);
    const clientId = await newClient();
    const s = await start(clientId);
    const back = await decide(s, account.id, false);
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe("st4te");
    expect(back.searchParams.get("code")).toBeNull();
  });

  it("a decision from a browser without the interaction cookie is refused", async () => {
    const { account } = await accountWithKey(t.ctx);
    const s = await start(await newClient());
    expect(await decideConsent(t.ctx, s.uid, undefined, account.id, true)).toBeNull();
    expect(await decideConsent(t.ctx, s.uid, "someone-elses", account.id, true)).toBeNull();
  });

  it("no PKCE, or code_challenge_method=plain, is invalid_request", async () => {
    const clientId = await newClient();
    const cases: Record<string, string>[] = [
      { code_challenge: "", code_challenge_method: "" },
      { code_challenge_method: "plain" },
    ];
    for (const params of cases) {
      const res = await authorize(clientId, params);
      expect(res.status).toBe(303);
      const back = new URL(res.headers.get("location")!);
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
      expect(back.searchParams.get("error")).toBe("invalid_request");
    }
  });

  it("a wrong verifier is invalid_grant", async () => {
    const { account } = await accountWithKey(t.ctx);
    const clientId = await newClient();
    const { code } = await codeFor(clientId, account.id);
    const r = await exchange(clientId, code, pkcePair().verifier);
    expect(r.status).toBe(400);
    expect(r.json.error).toBe("invalid_grant");
    expect(typeof r.json.error_description).toBe("string");
  });

  it("a reused code is invalid_grant, and the tokens of its first use are revoked (RFC 6749 4.1.2)", async () => {
    const { account } = await accountWithKey(t.ctx);
    const clientId = await newClient();
    const { code, verifier } = await codeFor(clientId, account.id);
    const first = await exchange(clientId, code, verifier);
    expect(first.status).toBe(200);
    registerSecret("oauth access token", first.json.access_token as string);
    expect((await rawMcp(first.json.access_token as string)).status).toBe(200);
    const second = await exchange(clientId, code, verifier);
    expect(second.status).toBe(400);
    expect(second.json.error).toBe("invalid_grant");
    expectChallenge(await rawMcp(first.json.access_token as string));
  });
});

describe("the official client's OAuth provider interface", () => {
  it("client 2.x discovers from BASE_URL/mcp, registers, and after consent exchanges the code and lists the account's drops", async () => {
    const { account } = await accountWithKey(t.ctx);
    const serverUrl = new URL(url("/mcp"));
    const provider = new ConnectorProvider(REDIRECT, "SDK Agent");
    expect(await auth(provider, { serverUrl })).toBe("REDIRECT");
    const at = provider.authorizationUrl!;
    expect(`${at.origin}${at.pathname}`).toBe(url("/api/oauth/authorize"));
    expect(at.searchParams.get("resource")).toBe(url("/mcp"));
    // The browser's leg, by hand: the consent page's request, the decision, the way back.
    const jar = new CookieJar();
    const first = await fetch(at, { redirect: "manual" });
    jar.take(first);
    const uid = /\/dashboard\/connect\/([^/?]+)$/.exec(first.headers.get("location")!)![1]!;
    const back = await decide({ jar, uid, verifier: "" }, account.id, true);
    const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
    await transport.finishAuth(back.searchParams);
    const client = new Client({ name: "sdk-agent", version: "1.0.0" });
    await client.connect(transport);
    const listed = (await client.callTool({ name: "list_drops", arguments: {} })) as {
      isError?: boolean;
      structuredContent?: { drops: unknown[] };
    };
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent?.drops).toEqual([]);
    await client.close();
  });
});

describe("tokens on /mcp", () => {
  it("an expired access token is 401 with the challenge naming the resource metadata", async () => {
    const { account } = await accountWithKey(t.ctx);
    const { access } = await tokensFor(await newClient(), account.id);
    expect((await rawMcp(access)).status).toBe(200);
    await t.ctx.db
      .update(oauthModels)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(and(eq(oauthModels.model, "AccessToken"), eq(oauthModels.id, credentialRowId(t.ctx.env, access))));
    expectChallenge(await rawMcp(access));
  });

  it("an unknown token of the same form is 401 too; no credential stays anonymous", async () => {
    expectChallenge(await rawMcp("A".repeat(43)));
    const anon = await fetch(url("/mcp"), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }),
    });
    expect(anon.status).toBe(200);
  });

  it("GET /keys lists the connected client beside API keys; DELETE /keys/{keyId} revokes its tokens", async () => {
    const { account, apiKey, keyId } = await accountWithKey(t.ctx);
    const clientId = await newClient("Revocable Agent");
    const { access, refresh } = await tokensFor(clientId, account.id);
    const listed = (await (
      await keysRoute.GET(new Request(url("/keys"), { headers: bearer(apiKey) }), { params: Promise.resolve({}) })
    ).json()) as { keys: Record<string, unknown>[] };
    const oauthEntry = listed.keys.find((k) => k.kind === "oauth");
    expect(oauthEntry).toMatchObject({ kind: "oauth", client_name: "Revocable Agent" });
    expect(listed.keys.find((k) => k.keyId === keyId)).toMatchObject({ kind: "api_key" });

    const id = oauthEntry!.keyId as string;
    const del = await keyRoute.DELETE(new Request(url(`/keys/${id}`), { method: "DELETE", headers: bearer(apiKey) }), {
      params: Promise.resolve({ id }),
    });
    expect(del.status).toBe(200);
    expectChallenge(await rawMcp(access));
    const refreshed = await token({ grant_type: "refresh_token", refresh_token: refresh, client_id: clientId });
    expect(refreshed.status).toBe(400);
    expect(refreshed.json.error).toBe("invalid_grant");
    const after = (await (
      await keysRoute.GET(new Request(url("/keys"), { headers: bearer(apiKey) }), { params: Promise.resolve({}) })
    ).json()) as { keys: Record<string, unknown>[] };
    expect(after.keys.some((k) => k.kind === "oauth")).toBe(false);
    // Another account cannot revoke it: 404, as for keys.
    const other = await accountWithKey(t.ctx);
    const { access: otherAccess } = await tokensFor(clientId, other.account.id);
    const otherId = (
      (await (
        await keysRoute.GET(new Request(url("/keys"), { headers: bearer(other.apiKey) }), {
          params: Promise.resolve({}),
        })
      ).json()) as { keys: Record<string, unknown>[] }
    ).keys.find((k) => k.kind === "oauth")!.keyId as string;
    const foreign = await keyRoute.DELETE(
      new Request(url(`/keys/${otherId}`), { method: "DELETE", headers: bearer(apiKey) }),
      { params: Promise.resolve({ id: otherId }) },
    );
    expect(foreign.status).toBe(404);
    expect((await rawMcp(otherAccess)).status).toBe(200);
  });
});

describe("an access token stays with its resource (BASE_URL/mcp)", () => {
  it("the REST API refuses it as any unknown credential: 401 auth_required on GET /drops, versions, /keys and /limits", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx);
    const slug = await deployWith(apiKey, "<h1>rest</h1>", "192.0.2.8");
    const { access } = await tokensFor(await newClient(), account.id);
    // The token works where it was issued for.
    expect((await rawMcp(access)).status).toBe(200);

    const none = { params: Promise.resolve({}) };
    const answers = [
      await dropsRoute.GET(new Request(url("/drops"), { headers: bearer(access) }), none),
      await versionsRoute.GET(new Request(url(`/drops/${slug}/versions`), { headers: bearer(access) }), {
        params: Promise.resolve({ slug }),
      }),
      await keysRoute.GET(new Request(url("/keys"), { headers: bearer(access) }), none),
      await limitsRoute.GET(new Request(url("/limits"), { headers: bearer(access) }), none),
      await deployRoute.POST(
        new Request(url("/deploy"), {
          method: "POST",
          headers: { ...bearer(access), "content-type": "application/json", "x-dropsite-socket-ip": "192.0.2.9" },
          body: JSON.stringify({ files: { "index.html": "<h1>no</h1>" } }),
        }),
        none,
      ),
    ];
    for (const res of answers) {
      expect(res.status).toBe(401);
      expect(((await res.json()) as { code: string }).code).toBe("auth_required");
    }
    // The same routes still answer the account's API key.
    expect((await dropsRoute.GET(new Request(url("/drops"), { headers: bearer(apiKey) }), none)).status).toBe(200);
  });

  it("revoking the client ends a one-time deploy URL its token asked for, with the tokens, at once", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx);
    const clientId = await newClient("Shell Agent");
    const { access, refresh } = await tokensFor(clientId, account.id);
    const client = await mcpClient(access);
    const issued = (await client.callTool({ name: "deploy_directory", arguments: {} })) as {
      isError?: boolean;
      structuredContent?: { url: string };
    };
    await client.close();
    expect(issued.isError).toBeFalsy();
    const grantToken = /\/deploy\/once\/(dg_[A-Za-z0-9_-]{43})$/.exec(issued.structuredContent!.url)![1]!;
    registerSecret("deploy grant", grantToken);

    const del = await keyRoute.DELETE(
      new Request(url(`/keys/oauth_${clientId}`), { method: "DELETE", headers: bearer(apiKey) }),
      { params: Promise.resolve({ id: `oauth_${clientId}` }) },
    );
    expect(del.status).toBe(200);
    expectChallenge(await rawMcp(access));
    const refreshed = await token({ grant_type: "refresh_token", refresh_token: refresh, client_id: clientId });
    expect(refreshed.json.error).toBe("invalid_grant");
    const used = await onceRoute.POST(
      new Request(url(`/deploy/once/${grantToken}`), {
        method: "POST",
        headers: { "content-type": "text/html", "x-dropsite-socket-ip": "192.0.2.10" },
        body: "<p>after revoke</p>",
      }),
      { params: Promise.resolve({ token: grantToken }) },
    );
    expect(used.status).toBe(401);
    expect(((await used.json()) as { code: string }).code).toBe("auth_required");
    const drops = (await (
      await dropsRoute.GET(new Request(url("/drops"), { headers: bearer(apiKey) }), { params: Promise.resolve({}) })
    ).json()) as { drops: unknown[] };
    expect(drops.drops).toEqual([]);
  });
});
