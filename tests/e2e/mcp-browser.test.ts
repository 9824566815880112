import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { freePort, startApp, type RunningApp } from "../support/app-server";
import { startOidcProvider, type OidcHarness } from "../support/oidc";
import { launchChromium, loginWithProvider } from "../support/browser";

// The built app with real Chromium: (1) the device flow end to end — an agent asks over MCP,
// a person logs in through the OpenID provider and approves on /device, the agent's poll gets
// a key that works, and a second poll gets nothing; (2) the Origin policy — a page on an allowed
// origin lists and calls tools with a Bearer key (CORS preflight included), a page on a foreign
// origin is refused.

let app: RunningApp;
let oidc: OidcHarness;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let pages: Server;
let pagesPort: number;
let apiKey = "";

beforeAll(async () => {
  // A page server for the "agent" origins: http://127.0.0.1:<port> is allowed, http://localhost:<port> is not.
  pages = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>agent</title><p>agent page</p>"),
  );
  await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
  pagesPort = (pages.address() as AddressInfo).port;
  const port = await freePort();
  oidc = await startOidcProvider({ redirectUris: [`http://localhost:${port}/api/auth/callback/oidc`] });
  app = await startApp(
    {
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: oidc.clientId,
      OIDC_CLIENT_SECRET: oidc.clientSecret,
      MCP_ALLOWED_ORIGINS: `http://127.0.0.1:${pagesPort}`,
    },
    { port },
  );
  browser = await launchChromium();
  context = await browser.newContext();
  await context.route("https://fonts.googleapis.com/**", (r) => r.abort());
  await context.route("https://fonts.gstatic.com/**", (r) => r.abort());
  page = await context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await oidc?.close();
  await new Promise((resolve) => pages?.close(resolve));
});

async function agent(key?: string): Promise<Client> {
  const client = new Client(
    { name: "device-agent", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${app.baseUrl}/mcp`), {
      requestInit: key ? { headers: { authorization: `Bearer ${key}` } } : undefined,
    }),
  );
  return client;
}

interface Result {
  content: { text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}
const text = (r: Result) => r.content.map((c) => c.text ?? "").join("\n");

describe("device authorisation in the browser", () => {
  it("the agent asks (with its anonymous drop), the person approves on /device, the agent's next poll gets a working key and the drop, once", async () => {
    const client = await agent();
    // Before it has a key the agent publishes anonymously, and asks to move that drop in the same approval.
    const deployed = (await client.callTool({
      name: "deploy_html",
      arguments: { html: "<h1>made before the key</h1>" },
    })) as Result;
    const drop = deployed.structuredContent as { slug: string; claim_token: string };
    expect(drop.claim_token).toMatch(/^ct_/);
    const started = (await client.callTool({
      name: "device_authorize",
      arguments: { claims: [{ slug: drop.slug, claim_token: drop.claim_token }] },
    })) as Result;
    const a = started.structuredContent as {
      device_code: string;
      user_code: string;
      verification_uri_complete: string;
      interval: number;
    };
    expect(a.verification_uri_complete).toBe(`${app.baseUrl}/device?code=${a.user_code}`);
    const pending = (await client.callTool({
      name: "device_token",
      arguments: { device_code: a.device_code },
    })) as Result;
    expect(pending.isError).toBe(true);
    expect(text(pending)).toMatch(/^Error \(authorization_pending\)/m);

    // The person logs in through the provider's real redirect flow, then opens the agent's link.
    await loginWithProvider(page, app.baseUrl, "dora");
    await page.goto(a.verification_uri_complete);
    await expect(page.locator("#device-code").inputValue()).resolves.toBe(a.user_code);
    const asked = await page.getByTestId("device-claims").textContent();
    expect(asked).toContain("This agent also asks to move 1 drop");
    expect(asked).toContain(drop.slug);
    await page.getByRole("button", { name: "Approve" }).click();
    await expect(page.getByTestId("device-outcome").textContent()).resolves.toContain("Approved");
    await expect(page.getByTestId("device-claims-outcome").textContent()).resolves.toContain(
      `${drop.slug}: moved into your account`,
    );

    // The agent keeps to its interval (polling faster answers slow_down).
    await new Promise((r) => setTimeout(r, a.interval * 1000 + 200));
    const got = (await client.callTool({ name: "device_token", arguments: { device_code: a.device_code } })) as Result;
    expect(got.isError ?? false, text(got)).toBe(false);
    apiKey = (got.structuredContent as { api_key: string }).api_key;
    expect((got.structuredContent as { claims: unknown[] }).claims).toEqual([
      { slug: drop.slug, claimed: true, url: expect.stringContaining(drop.slug) },
    ]);
    expect(apiKey).toMatch(/^sp_[A-Za-z0-9_-]{43}$/);
    await client.close();

    const authed = await agent(apiKey);
    const list = (await authed.callTool({ name: "list_drops", arguments: {} })) as Result;
    expect(list.isError ?? false, text(list)).toBe(false);
    expect((list.structuredContent as { drops: { slug: string }[] }).drops.map((d) => d.slug)).toEqual([drop.slug]);
    await authed.close();

    const again = await agent();
    const second = (await again.callTool({
      name: "device_token",
      arguments: { device_code: a.device_code },
    })) as Result;
    expect(text(second)).toMatch(/^Error \(expired_token\)/m);
    await again.close();
  }, 120_000);
});

/** Runs in the page: a modern tools/list and a tools/call with the Bearer key, as a browser agent would. */
async function callFromPage(p: Page, mcpUrl: string, key: string) {
  return p.evaluate(
    async ({ mcpUrl, key }) => {
      const meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      };
      const post = async (method: string, params: Record<string, unknown>, name?: string) => {
        const headers: Record<string, string> = {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${key}`,
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": method,
        };
        if (name) headers["mcp-name"] = name;
        const res = await fetch(mcpUrl, {
          method: "POST",
          headers,
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } }),
        });
        return {
          status: res.status,
          body: (await res.json()) as {
            result?: { tools?: { name: string }[]; isError?: boolean; structuredContent?: { total?: number } };
          },
        };
      };
      try {
        const list = await post("tools/list", {});
        const call = await post("tools/call", { name: "list_drops", arguments: {} }, "list_drops");
        return {
          ok: true as const,
          tools: list.body.result?.tools?.map((t) => t.name) ?? [],
          listStatus: list.status,
          callError: call.body.result?.isError ?? null,
          total: call.body.result?.structuredContent?.total ?? null,
        };
      } catch (err) {
        return { ok: false as const, error: String(err) };
      }
    },
    { mcpUrl, key },
  );
}

describe("the Origin policy in the browser", () => {
  it("a page on an allowed origin lists and calls tools with a Bearer key", async () => {
    expect(apiKey).not.toBe("");
    const agentPage = await context.newPage();
    await agentPage.goto(`http://127.0.0.1:${pagesPort}/`);
    const r = await callFromPage(agentPage, `${app.baseUrl}/mcp`, apiKey);
    expect(r).toMatchObject({ ok: true, listStatus: 200, callError: false, total: 1 });
    expect(r.ok && r.tools).toContain("deploy_html");
    await agentPage.close();
  });

  it("a page on a foreign origin is refused (403 to its preflight and its request)", async () => {
    const foreign = await context.newPage();
    await foreign.goto(`http://localhost:${pagesPort}/`);
    const r = await callFromPage(foreign, `${app.baseUrl}/mcp`, apiKey);
    expect(r.ok).toBe(false);
    await foreign.close();
    // What the browser saw, asked directly: the preflight and a POST with that Origin answer 403.
    const preflight = await app.request(`localhost:${app.port}`, "/mcp", {
      method: "OPTIONS",
      headers: { origin: `http://localhost:${pagesPort}`, "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(403);
    const direct = await app.request(`localhost:${app.port}`, "/mcp", {
      method: "POST",
      headers: { origin: `http://localhost:${pagesPort}`, "content-type": "application/json" },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(direct.status).toBe(403);
  });
});
