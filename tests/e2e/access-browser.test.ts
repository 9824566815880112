import { AxeBuilder } from "@axe-core/playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { startApp, type RunningApp } from "../support/app-server";
import { inspectPage, launchChromium, layoutProblems, scriptErrors, VIEWPORTS } from "../support/browser";
import { registerSecret } from "../support/secrets";

// Private drops in a real browser against the built app (`npm run build` first), at 1280 and
// 390 px: the owner protects a drop with the Access form of its dashboard page; a visitor gets
// the lock page, types the password and sees the page with its stylesheet and image; a second
// protected drop stays locked.

let app: RunningApp;
let browser: Browser;
let apiKey = "";
let first = "";
let second = "";
const PASSWORD = "open sesame 2026";
const OTHER_PASSWORD = "another secret 2026";
registerSecret("drop password", PASSWORD);
registerSecret("drop password", OTHER_PASSWORD);

const SITE = {
  "index.html":
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Private report</title><link rel="stylesheet" href="/assets/style.3f9a1c2b.css"></head><body><main><h1>Quarterly report</h1><img src="/logo.svg" alt="Logo" width="120" height="60"></main></body></html>',
  "assets/style.3f9a1c2b.css": "h1 { color: rgb(12, 34, 56); }",
  "logo.svg":
    '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60"><rect width="120" height="60" fill="#0b57d0"/></svg>',
};

const api = (path: string, init: RequestInit = {}) => fetch(`${app.baseUrl}${path}`, init);
const dropUrl = (slug: string) => `http://${slug}.${app.serveDomain}/`;

async function deploy(): Promise<string> {
  const res = await api("/deploy", {
    method: "POST",
    body: JSON.stringify({ files: SITE }),
    headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { slug: string }).slug;
}

beforeAll(async () => {
  app = await startApp();
  // The first requests open the database and load the login page's code: do it before the
  // browser waits on them (a loaded machine can take longer than a navigation's timeout).
  expect((await api("/login")).status).toBe(200);
  browser = await launchChromium();
  // The owner: the local-developer login, a key minted on the dashboard, two drops through the API.
  const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
  const p = await ctx.newPage();
  await p.goto(`${app.baseUrl}/login`);
  await p.fill("#dev-email", "owner@example.test");
  await p.getByRole("button", { name: "Sign in as this developer" }).click();
  await p.waitForURL(`${app.baseUrl}/dashboard`);
  await p.goto(`${app.baseUrl}/dashboard/keys`);
  await p.fill("#key-note", "access test");
  await p.getByRole("button", { name: "Mint API key" }).click();
  await p.getByTestId("new-key-secret").waitFor();
  apiKey = (await p.getByTestId("new-key-secret").textContent())!.trim();
  registerSecret("api key", apiKey);
  first = await deploy();
  second = await deploy();
  await ctx.close();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function axeViolations(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations.map((v) => `${v.id}: ${v.help}`);
}

describe("the owner", () => {
  it("protects a drop with the Access form on its dashboard page", async () => {
    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    try {
      const p = await ctx.newPage();
      const errors = scriptErrors(p);
      await p.goto(`${app.baseUrl}/login`);
      await p.fill("#dev-email", "owner@example.test");
      await p.getByRole("button", { name: "Sign in as this developer" }).click();
      await p.waitForURL(`${app.baseUrl}/dashboard`);
      await p.goto(`${app.baseUrl}/dashboard/drops/${first}`);
      await expect(p.getByTestId("access-mode").textContent()).resolves.toContain("Public");
      await p.getByLabel("Only visitors who know the password").check();
      // Too short: the service's refusal, and nothing changes.
      await p.getByLabel(/^Password/).fill("short");
      await p.getByRole("button", { name: "Save access" }).click();
      await p.locator(".access-form .error[role=alert]").waitFor();
      await expect(p.locator(".access-form .error").textContent()).resolves.toContain("invalid_request");
      expect((await app.request(`${first}.${app.serveDomain}`, "/")).status).toBe(200);
      // (Before the page's script has run, the refusal is a new page showing the drop's current mode.)
      await p.getByLabel("Only visitors who know the password").check();
      await p.getByLabel(/^Password/).fill(PASSWORD);
      await p.getByRole("button", { name: "Save access" }).click();
      await p.getByTestId("access-status").filter({ hasText: "Saved: the drop is password-protected." }).waitFor();
      // The form shows what was saved; the password field is empty again.
      await expect(p.getByLabel("Only visitors who know the password").isChecked()).resolves.toBe(true);
      await expect(p.getByLabel(/^Password/).inputValue()).resolves.toBe("");
      const r = await inspectPage(p, "drop-access");
      expect(r.problems).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await ctx.close();
    }
    const got = await api(`/drops/${first}`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(((await got.json()) as { access: string }).access).toBe("password");
    const put = await api(`/drops/${second}/access`, {
      method: "PUT",
      body: JSON.stringify({ mode: "password", password: OTHER_PASSWORD }),
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
    });
    expect(put.status).toBe(200);
  });
});

describe.each(Object.entries(VIEWPORTS))("a visitor at %s width", (label, viewport) => {
  it("gets the lock page, types the password, sees the page with its CSS and image; the second drop stays locked", async () => {
    const ctx = await browser.newContext({ viewport });
    try {
      const p = await ctx.newPage();
      const errors = scriptErrors(p);
      const locked = await p.goto(dropUrl(first));
      expect(locked?.status()).toBe(401);
      expect(await p.title()).toBe("Password required");
      await expect(p.getByRole("heading", { level: 1, name: "Password required" }).count()).resolves.toBe(1);
      await expect(p.content()).resolves.not.toContain("Quarterly report");
      expect(await layoutProblems(p)).toEqual([]);
      expect(await axeViolations(p)).toEqual([]);
      if (label === "desktop") {
        const shots = await inspectPage(p, "drop-locked");
        expect(shots.problems).toEqual([]);
      }
      // A wrong password: the form again, with the error announced.
      await p.getByLabel("Password").fill("not the password");
      await p.getByRole("button", { name: "Unlock" }).click();
      await p.getByRole("alert").waitFor();
      await expect(p.getByRole("alert").textContent()).resolves.toContain("Wrong password");
      expect(await axeViolations(p)).toEqual([]);
      // The right one: back to the page, with its stylesheet and image.
      await p.getByLabel("Password").fill(PASSWORD);
      await Promise.all([p.waitForURL(dropUrl(first)), p.getByRole("button", { name: "Unlock" }).click()]);
      await p.getByRole("heading", { name: "Quarterly report" }).waitFor();
      await expect(p.locator("h1").evaluate((el) => getComputedStyle(el).color)).resolves.toBe("rgb(12, 34, 56)");
      await p.waitForFunction(() => document.querySelector("img")?.complete === true);
      await expect(p.locator("img").evaluate((img: HTMLImageElement) => img.naturalWidth)).resolves.toBe(120);
      const cookies = await ctx.cookies(dropUrl(first));
      const unlock = cookies.find((c) => c.name === "dropsite-access");
      expect(unlock).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/", domain: `${first}.localhost` });
      // The other drop, on its own host, is still locked in this browser.
      const other = await p.goto(dropUrl(second));
      expect(other?.status()).toBe(401);
      await expect(p.content()).resolves.not.toContain("Quarterly report");
      // And the first stays open.
      const again = await p.goto(dropUrl(first));
      expect(again?.status()).toBe(200);
      expect(errors).toEqual([]);
    } finally {
      await ctx.close();
    }
  });
});
