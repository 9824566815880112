import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { startApp, type RunningApp } from "../support/app-server";
import { launchChromium, scriptErrors } from "../support/browser";

// The interactive reference (/docs/api) in real Chromium, against the built app: it renders
// every operation of /openapi.json, and no request leaves loopback — Scalar's script comes from
// the app, and fonts, telemetry and the like are off. A request to any other host fails the test.

let app: RunningApp;
let browser: Browser;
let page: Page;
let errors: string[];
const outside: string[] = [];
const refused: string[] = [];

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

beforeAll(async () => {
  app = await startApp();
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (LOOPBACK.has(url.hostname)) return route.continue();
    outside.push(url.href);
    return route.abort("blockedbyclient");
  });
  page = await context.newPage();
  errors = scriptErrors(page);
  // Content-Security-Policy violations are reported on the console.
  page.on("console", (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) refused.push(msg.text());
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe("GET /docs/api in a browser", () => {
  it("renders every operation of /openapi.json with no request leaving loopback", async () => {
    const doc = (await (await fetch(`${app.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { summary: string }>>;
    };
    const summaries = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((op) => op.summary));
    expect(summaries.length).toBeGreaterThan(20);

    const res = await page.goto(`${app.baseUrl}/docs/api`, { waitUntil: "networkidle" });
    expect(res?.status()).toBe(200);
    expect(res?.headers()["content-security-policy"]).toContain("connect-src 'self'");
    await page.getByText(summaries[0]!, { exact: true }).first().waitFor({ timeout: 60_000 });
    const text = await page.evaluate(() => document.body.innerText);
    for (const summary of summaries) expect(text, summary).toContain(summary);

    expect(outside).toEqual([]);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
  });
});
