import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { auth, Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { freePort, startApp, type RunningApp } from "../support/app-server";
import { startOidcProvider, type OidcHarness } from "../support/oidc";
import { launchChromium } from "../support/browser";
import { ConnectorProvider } from "../support/oauth";

// A hosted agent platform's connector, end to end on the built app with real Chromium: the
// official MCP client 2.x, through its OAuth client provider interface, is given the URL
// docs/mcp.md names (BASE_URL/mcp), discovers the authorization server, registers, and sends
// the person to the authorization URL; the person (not logged in) lands on the app's login page,
// logs in through the OpenID provider, comes back to the consent page, reads the client's name and
// approves; the client exchanges the code and its tools act as that account. Revoking the client
// on the dashboard ends its access.

let app: RunningApp;
let oidc: OidcHarness;
let browser: Browser;
let page: Page;
let callbackServer: Server;
let redirectUri = "";
const codes: URLSearchParams[] = [];

beforeAll(async () => {
  // The connector's redirect target: a loopback server that keeps what the browser brings back.
  callbackServer = createServer((req, res) => {
    codes.push(new URL(req.url ?? "/", "http://127.0.0.1").searchParams);
    res
      .writeHead(200, { "content-type": "text/html" })
      .end("<!doctype html><title>connected</title><p>You can close this window.</p>");
  });
  await new Promise<void>((resolve) => callbackServer.listen(0, "127.0.0.1", resolve));
  redirectUri = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
  const port = await freePort();
  oidc = await startOidcProvider({ redirectUris: [`http://localhost:${port}/api/auth/callback/oidc`] });
  app = await startApp(
    { OIDC_ISSUER: oidc.issuer, OIDC_CLIENT_ID: oidc.clientId, OIDC_CLIENT_SECRET: oidc.clientSecret },
    { port },
  );
  browser = await launchChromium();
  const context = await browser.newContext();
  await context.route("https://fonts.googleapis.com/**", (r) => r.abort());
  await context.route("https://fonts.gstatic.com/**", (r) => r.abort());
  page = await context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await oidc?.close();
  await new Promise((resolve) => callbackServer?.close(resolve));
});

interface Result {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { text?: string }[];
}

describe("an OAuth connector in the browser", () => {
  it(
    "registers, the person logs in and approves, the client's tools act as that account; revoking on the dashboard ends it",
    { timeout: 120_000 },
    async () => {
      const serverUrl = new URL(`${app.baseUrl}/mcp`);
      const provider = new ConnectorProvider(redirectUri);

      // Without a credential the account tools answer auth_required, naming the OAuth metadata.
      const anon = new Client({ name: "e2e-connector", version: "1.0.0" });
      await anon.connect(new StreamableHTTPClientTransport(serverUrl));
      const refused = (await anon.callTool({ name: "list_drops", arguments: {} })) as Result;
      expect(refused.isError).toBe(true);
      expect(refused.content.map((c) => c.text).join("\n")).toContain("/.well-known/oauth-protected-resource/mcp");
      await anon.close();

      // The client's own flow: discovery from the resource, registration, the authorization URL.
      expect(await auth(provider, { serverUrl })).toBe("REDIRECT");
      const authorizationUrl = provider.authorizationUrl!;
      expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${app.baseUrl}/api/oauth/authorize`);
      expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
      expect(authorizationUrl.searchParams.get("resource")).toBe(`${app.baseUrl}/mcp`);

      // The person has no session: the app's own login page, which comes back to the consent page.
      await page.goto(authorizationUrl.href);
      await page.waitForURL(/\/login\?next=/);
      await page.getByRole("button", { name: /Continue with/ }).click();
      await page.waitForURL(/\/interaction\//, { waitUntil: "domcontentloaded" });
      await page.fill('input[name="login"]', "olga");
      await page.fill('input[name="password"]', "correct horse");
      await page.click("button.login-submit");
      await page.waitForLoadState("domcontentloaded");
      if (page.url().includes("/interaction/")) await page.click("button.login-submit");
      await page.waitForURL(/\/dashboard\/connect\//);
      await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Connect E2E Connector?");
      await expect(page.locator("main").textContent()).resolves.toContain("olga@example.test");

      await page.getByRole("button", { name: "Approve" }).click();
      await page.waitForURL((u) => u.href.startsWith(redirectUri));
      const back = codes.at(-1)!;
      expect(back.get("code")).toBeTruthy();
      expect(back.get("error")).toBeNull();

      // The client exchanges the code (PKCE verifier, issuer checked) and connects with the token.
      const transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
      await transport.finishAuth(back);
      expect(provider.tokens()?.refresh_token).toBeTruthy();
      const client = new Client({ name: "e2e-connector", version: "1.0.0" });
      await client.connect(transport);
      const deployed = (await client.callTool({
        name: "deploy_html",
        arguments: { html: "<h1>from the connector</h1>" },
      })) as Result;
      expect(deployed.isError).toBeFalsy();
      const slug = deployed.structuredContent!.slug as string;
      // An account's drop: no claim token.
      expect(deployed.structuredContent!.claim_token).toBeUndefined();
      const listed = (await client.callTool({ name: "list_drops", arguments: {} })) as Result;
      expect(listed.isError).toBeFalsy();
      expect((listed.structuredContent!.drops as { slug: string }[]).map((d) => d.slug)).toEqual([slug]);

      // The same account on the dashboard: the drop, and the connector beside the API keys.
      await page.goto(`${app.baseUrl}/dashboard`);
      await expect(page.locator("main").textContent()).resolves.toContain(slug);
      await page.goto(`${app.baseUrl}/dashboard/keys`);
      await page.getByRole("button", { name: "Revoke E2E Connector" }).click();
      await page.getByTestId("clients-said").filter({ hasText: "E2E Connector disconnected." }).waitFor();

      // Revoked: the token and its refresh token are dead; the client cannot call tools any more.
      await expect(client.callTool({ name: "list_drops", arguments: {} })).rejects.toThrow();
      const raw = await fetch(serverUrl, {
        method: "POST",
        headers: {
          authorization: `Bearer ${provider.tokens()!.access_token}`,
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
      expect(raw.status).toBe(401);
      expect(raw.headers.get("www-authenticate")).toContain(
        `resource_metadata="${app.baseUrl}/.well-known/oauth-protected-resource/mcp"`,
      );
    },
  );

  it("deny sends the browser back to the client with error=access_denied", async () => {
    const provider = new ConnectorProvider(redirectUri);
    expect(await auth(provider, { serverUrl: new URL(`${app.baseUrl}/mcp`) })).toBe("REDIRECT");
    // Logged in from the first test: straight to the consent page.
    await page.goto(provider.authorizationUrl!.href);
    await page.waitForURL(/\/dashboard\/connect\//);
    await page.getByRole("button", { name: "Deny" }).click();
    await page.waitForURL((u) => u.href.startsWith(redirectUri));
    expect(codes.at(-1)!.get("error")).toBe("access_denied");
    expect(codes.at(-1)!.get("code")).toBeNull();
  });
});
