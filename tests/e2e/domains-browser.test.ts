import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { axeViolations } from "../support/a11y";
import { startApp, type RunningApp } from "../support/app-server";
import { inspectPage, launchChromium, scriptErrors, VIEWPORTS } from "../support/browser";
import { startDnsStandin, type DnsStandin } from "../support/dns-standin";
import { startPgServer, type PgServer } from "../support/pg-server";
import { registerSecret } from "../support/secrets";

// The drop page's Custom domains card in a real browser against the built app (`npm run build`
// first), on PostgreSQL (the test makes the account Team) and a local DNS server: the owner adds
// a domain, copies its records, checks DNS before and after the TXT record is published, the
// drop is served on the hostname, and removes it. axe (WCAG 2.2 AA, as tests/support/pages.ts's
// pages) and the layout checks at 1280 and 390 px.

let app: RunningApp;
let pg: PgServer;
let dns: DnsStandin;
let browser: Browser;
let slug = "";
const HOSTNAME = "docs.browser.example";

const api = (path: string, init: RequestInit = {}) => fetch(`${app.baseUrl}${path}`, init);

async function login(p: Page): Promise<void> {
  await p.goto(`${app.baseUrl}/login`);
  await p.fill("#dev-email", "domains@example.test");
  await p.getByRole("button", { name: "Sign in as this developer" }).click();
  await p.waitForURL(`${app.baseUrl}/dashboard`);
}

beforeAll(async () => {
  [pg, dns] = await Promise.all([startPgServer(), startDnsStandin()]);
  app = await startApp({ DATABASE_URL: pg.url, DNS_SERVERS: dns.servers });
  expect((await api("/login")).status).toBe(200);
  browser = await launchChromium();
  const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
  const p = await ctx.newPage();
  await login(p);
  await p.goto(`${app.baseUrl}/dashboard/keys`);
  await p.fill("#key-note", "domains test");
  await p.getByRole("button", { name: "Mint API key" }).click();
  await p.getByTestId("new-key-secret").waitFor();
  const apiKey = (await p.getByTestId("new-key-secret").textContent())!.trim();
  registerSecret("api key", apiKey);
  await ctx.close();
  const { Pool } = await import("pg");
  const pool = new Pool({ connectionString: pg.url });
  await pool.query("update accounts set plan = 'team' where email = 'domains@example.test'");
  await pool.end();
  const res = await api("/deploy", {
    method: "POST",
    body: '<!doctype html><html lang="en"><title>Docs</title><main><h1>Docs</h1></main></html>',
    headers: { "content-type": "text/html", authorization: `Bearer ${apiKey}` },
  });
  expect(res.status).toBe(200);
  slug = ((await res.json()) as { slug: string }).slug;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await pg?.stop();
  await dns?.close();
});

describe("the drop page's Custom domains card", () => {
  it("adds a domain with its DNS records, checks DNS until it is active, serves the drop there, removes it", async () => {
    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    try {
      const p = await ctx.newPage();
      const errors = scriptErrors(p);
      await login(p);
      await p.goto(`${app.baseUrl}/dashboard/drops/${slug}`);
      await p.getByLabel("Hostname").fill("Docs.Browser.Example");
      await p.getByRole("button", { name: "Add domain" }).click();
      await p
        .getByTestId("domains-status")
        .filter({ hasText: `Added ${HOSTNAME}` })
        .waitFor();
      await expect(p.getByTestId(`domain-status-${HOSTNAME}`).textContent()).resolves.toBe("Pending");
      const value = (await p.locator("td code", { hasText: "dropsite-verify=" }).textContent())!.trim();
      await expect(p.getByRole("button", { name: `Copy the TXT record value of ${HOSTNAME}` }).count()).resolves.toBe(
        1,
      );
      await expect(p.locator("td code", { hasText: `${slug}.` }).count()).resolves.toBe(1);

      await p.getByRole("button", { name: `Check DNS of ${HOSTNAME}` }).click();
      await p.getByTestId("domains-status").filter({ hasText: "still pending: no TXT record found yet" }).waitFor();
      expect(await axeViolations(p, "drop page, domain pending")).toEqual([]);
      const pending = await inspectPage(p, "drop-domains-pending");
      expect(pending.problems).toEqual([]);

      dns.setTxt(`_dropsite-challenge.${HOSTNAME}`, [value]);
      await p.getByRole("button", { name: `Check DNS of ${HOSTNAME}` }).click();
      await p
        .getByTestId("domains-status")
        .filter({ hasText: `${HOSTNAME} is active` })
        .waitFor();
      await expect(p.getByTestId(`domain-status-${HOSTNAME}`).textContent()).resolves.toBe("Active");
      expect(await axeViolations(p, "drop page, domain active")).toEqual([]);
      expect((await app.request(HOSTNAME, "/")).status).toBe(200);

      await p.getByRole("button", { name: `Remove ${HOSTNAME}` }).click();
      await p
        .getByTestId("domains-status")
        .filter({ hasText: `Removed ${HOSTNAME}` })
        .waitFor();
      await expect(p.getByTestId("domains-list").count()).resolves.toBe(0);
      expect((await app.request(HOSTNAME, "/")).status).toBe(404);

      await p.getByLabel("Hostname").fill("192.0.2.1");
      await p.getByRole("button", { name: "Add domain" }).click();
      await p.locator(".card .error[role=alert]").filter({ hasText: "invalid_request" }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await ctx.close();
    }
  });
});
