import { stat } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { freePort, startApp, type RunningApp } from "../support/app-server";
import { startOidcProvider, type OidcHarness } from "../support/oidc";
import { startStripeStandin, type StripeStandin } from "../support/stripe-standin";
import { launchChromium, screenshots } from "../support/browser";
import Stripe from "stripe";

// A person in a real browser: anonymous drag and drop, login through a real OpenID provider
// (the full redirect flow), the dashboard, claiming, keys, deletion and upgrading.

let app: RunningApp;
let oidc: OidcHarness;
let stripe: StripeStandin;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let anonymousSlug = "";
let apiSlug = "";

beforeAll(async () => {
  const port = await freePort();
  oidc = await startOidcProvider({ redirectUris: [`http://localhost:${port}/api/auth/callback/oidc`] });
  stripe = await startStripeStandin();
  app = await startApp(
    {
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: oidc.clientId,
      OIDC_CLIENT_SECRET: oidc.clientSecret,
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_API_BASE: stripe.url,
      STRIPE_WEBHOOK_SECRET: "whsec_browser_test",
      STRIPE_PRICE_PRO: "price_pro_test",
      STRIPE_PRICE_TEAM: "price_team_test",
    },
    { port },
  );
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // The provider's login page asks for a web font; there is no internet here.
  await context.route("https://fonts.googleapis.com/**", (r) => r.abort());
  await context.route("https://fonts.gstatic.com/**", (r) => r.abort());
  // Checkout lives at Stripe; the stand-in's session URL is answered here.
  await context.route("https://checkout.stripe.test/**", (r) => r.fulfill({ status: 200, contentType: "text/html", body: "<h1>Stripe Checkout (stand-in)</h1>" }));
  page = await context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await oidc?.close();
  await stripe?.close();
});

const api = (path: string, init: RequestInit = {}) => fetch(`${app.baseUrl}${path}`, init);

describe("the landing page", () => {
  it("explains the service, shows pricing from the plan table, is keyboard reachable and does not shift", async () => {
    await page.goto(app.baseUrl);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toContain("Publish a static site");
    await expect(page.getByTestId("plan-pro").textContent()).resolves.toContain("900 files per deploy");
    await expect(page.getByTestId("plan-team").textContent()).resolves.toContain("Your own subdomain");
    const focused: string[] = [];
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press("Tab");
      focused.push(await page.evaluate(() => document.activeElement?.textContent?.trim() ?? ""));
    }
    expect(focused).toContain("Choose files");
    const cls = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          let total = 0;
          new PerformanceObserver((list) => {
            for (const e of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[]) if (!e.hadRecentInput) total += e.value;
          }).observe({ type: "layout-shift", buffered: true });
          setTimeout(() => resolve(total), 500);
        }),
    );
    expect(cls).toBeLessThan(0.05);
    const shots = await screenshots(page, "landing");
    for (const s of shots) expect((await stat(s)).size).toBeGreaterThan(10_000);
  });

  it("deploys a dropped site anonymously, with progress, and the URL shows it", async () => {
    await page.goto(app.baseUrl);
    const dataTransfer = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['<!doctype html><link rel="stylesheet" href="style.css"><h1 id="hi">Hello from the browser</h1>'], "index.html", { type: "text/html" }));
      dt.items.add(new File(["#hi { color: rgb(200, 0, 0); }"], "style.css", { type: "text/css" }));
      return dt;
    });
    await page.getByTestId("dropzone").dispatchEvent("drop", { dataTransfer });
    const link = page.getByTestId("deployed-url");
    await link.waitFor({ timeout: 30_000 });
    const url = (await link.getAttribute("href"))!;
    expect(url).toMatch(new RegExp(`^http://[a-z2-7]{20}\\.localhost:${app.port}/$`));
    anonymousSlug = new URL(url).hostname.split(".")[0]!;
    const pending = await page.evaluate(() => localStorage.getItem("dropsite:pending-claims"));
    expect(pending).toContain(anonymousSlug);
    const site = await context.newPage();
    await site.goto(url);
    await expect(site.locator("#hi").textContent()).resolves.toBe("Hello from the browser");
    await expect(site.locator("#hi").evaluate((el) => getComputedStyle(el).color)).resolves.toBe("rgb(200, 0, 0)");
    await site.close();
  });

  it("shows the error and its hint when a deploy is refused", async () => {
    await page.goto(app.baseUrl);
    const dataTransfer = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(["not really a zip"], "site.zip", { type: "application/zip" }));
      return dt;
    });
    await page.getByTestId("dropzone").dispatchEvent("drop", { dataTransfer });
    const alert = page.locator(".error[role=alert]");
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toContain("invalid_zip");
  });
});

describe("an account in the browser", () => {
  it("logs in through the OpenID provider's real redirect flow and sees its drops", async () => {
    // A drop made through the API with an ID token of the same person.
    const token = await oidc.mintIdToken({ sub: "alice", email: "alice@example.test" });
    const res = await api("/deploy", { method: "POST", body: "<h1>from the API</h1>", headers: { authorization: `Bearer ${token}`, "content-type": "text/html" } });
    expect(res.status).toBe(200);
    apiSlug = (await res.json()).slug;

    await page.goto(`${app.baseUrl}/login`);
    await page.getByRole("button", { name: /Continue with/ }).click();
    await page.waitForURL(/\/interaction\//, { waitUntil: "domcontentloaded" });
    await page.fill('input[name="login"]', "alice");
    await page.fill('input[name="password"]', "correct horse");
    await page.click("button.login-submit");
    await page.waitForLoadState("domcontentloaded");
    if (page.url().includes("/interaction/")) await page.click("button.login-submit");
    await page.waitForURL(`${app.baseUrl}/dashboard`);
    await expect(page.getByText("alice@example.test").count()).resolves.toBeGreaterThan(0);
    await page.getByTestId(`drop-${apiSlug}`).waitFor();
    // The session cookie is httpOnly and scoped to the app host.
    const cookies = await context.cookies(app.baseUrl);
    const session = cookies.find((c) => c.name.includes("next-auth.session-token"));
    expect(session?.httpOnly).toBe(true);
    expect(session?.domain).toBe("localhost");
  });

  it("claims the anonymous drop made before logging in", async () => {
    await page.getByTestId(`claim-${anonymousSlug}`).getByRole("button", { name: "Claim" }).click();
    await page.getByTestId(`drop-${anonymousSlug}`).waitFor();
    const token = await oidc.mintIdToken({ sub: "alice" });
    const list = await (await api("/drops", { headers: { authorization: `Bearer ${token}` } })).json();
    expect(list.drops.map((d: { slug: string }) => d.slug).sort()).toEqual([anonymousSlug, apiSlug].sort());
  });

  it("mints a key shown once, which works with the API until it is revoked", async () => {
    await page.fill("#key-note", "browser test");
    await page.getByRole("button", { name: "Mint API key" }).click();
    const secretEl = page.getByTestId("new-key-secret");
    await secretEl.waitFor();
    const apiKey = (await secretEl.textContent())!.trim();
    expect(apiKey).toMatch(/^sp_[A-Za-z0-9_-]{43}$/);
    await screenshots(page, "dashboard-key-minted");
    const ok = await api("/drops", { headers: { authorization: `Bearer ${apiKey}` } });
    expect(ok.status).toBe(200);
    expect((await ok.json()).total).toBe(2);
    await page.getByRole("button", { name: `Revoke key ${apiKey.slice(0, 10)}` }).click();
    await page.getByTestId(`key-${apiKey.slice(0, 10)}`).waitFor({ state: "detached" });
    await expect(page.getByTestId("new-key").count()).resolves.toBe(0);
    const after = await api("/drops", { headers: { authorization: `Bearer ${apiKey}` } });
    expect(after.status).toBe(401);
    expect((await after.json()).code).toBe("auth_required");
  });

  it("deletes a drop after confirmation, and its URL stops serving", async () => {
    const row = page.getByTestId(`drop-${anonymousSlug}`);
    await row.getByRole("button", { name: /^Delete/ }).click();
    await row.getByRole("button", { name: "Confirm delete" }).click();
    await row.waitFor({ state: "detached" });
    const res = await app.request(`${anonymousSlug}.localhost:${app.port}`, "/");
    expect([404, 410]).toContain(res.status);
    await screenshots(page, "dashboard");
  });

  it("Upgrade leads to the Checkout URL the Stripe stand-in created", async () => {
    await page.getByRole("button", { name: "Upgrade to Pro" }).click();
    await page.waitForURL(/checkout\.stripe\.test/);
    const created = stripe.requestsTo("/v1/checkout/sessions", "POST");
    expect(created).toHaveLength(1);
    expect(page.url()).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_/);
    await expect(page.locator("h1").textContent()).resolves.toContain("Stripe Checkout");
  });

  it("after Stripe reports the subscription, the dashboard deploys a named drop and redeploys it in place", async () => {
    const session = stripe.requestsTo("/v1/checkout/sessions", "POST")[0]!;
    const form = session.body;
    const accountId = String(form.client_reference_id);
    const customer = String(form.customer);
    const sub = stripe.putSubscription({ customer, price: "price_pro_test", metadata: { accountId } });
    const created = Math.floor(Date.now() / 1000);
    const event = { id: `evt_browser_${created}`, object: "event", created, type: "checkout.session.completed", data: { object: { id: "cs_browser", object: "checkout.session", mode: "subscription", customer, subscription: sub.id, client_reference_id: accountId } } };
    const payload = JSON.stringify(event);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: "whsec_browser_test" });
    const hook = await api("/billing/webhook", { method: "POST", body: payload, headers: { "content-type": "application/json", "stripe-signature": signature } });
    expect(hook.status).toBe(200);

    await page.goto(`${app.baseUrl}/dashboard`);
    await expect(page.getByTestId("plan").textContent()).resolves.toBe("pro");
    await page.getByRole("button", { name: "Manage billing" }).waitFor();
    await page.fill("#drop-name", "my-site");
    const drop = async (html: string) => {
      const dataTransfer = await page.evaluateHandle((body) => {
        const dt = new DataTransfer();
        dt.items.add(new File([body], "index.html", { type: "text/html" }));
        return dt;
      }, html);
      await page.getByTestId("dropzone").dispatchEvent("drop", { dataTransfer });
      const link = page.getByTestId("deployed-url");
      await link.waitFor();
      return (await link.getAttribute("href"))!;
    };
    const first = await drop("<h1>version one</h1>");
    const label = new URL(first).hostname.split(".")[0]!;
    expect((await app.request(`${label}.localhost:${app.port}`, "/")).text).toBe("<h1>version one</h1>");
    await page.reload();
    await page.fill("#drop-name", "my-site");
    const second = await drop("<h1>version two</h1>");
    expect(second).toBe(first);
    expect((await app.request(`${label}.localhost:${app.port}`, "/")).text).toBe("<h1>version two</h1>");
    await page.reload();
    await expect(page.getByTestId(`drop-${label}`).textContent()).resolves.toContain("my-site");
  });

  it("on Team, claims a vanity subdomain that serves the named drop", async () => {
    const session = stripe.requestsTo("/v1/checkout/sessions", "POST")[0]!;
    const form = session.body;
    const team = stripe.putSubscription({ customer: String(form.customer), price: "price_team_test", metadata: { accountId: String(form.client_reference_id) } });
    const created = Math.floor(Date.now() / 1000) + 5;
    const payload = JSON.stringify({ id: `evt_browser_team_${created}`, object: "event", created, type: "customer.subscription.updated", data: { object: team } });
    const hook = await api("/billing/webhook", {
      method: "POST",
      body: payload,
      headers: { "content-type": "application/json", "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload, secret: "whsec_browser_test" }) },
    });
    expect(hook.status).toBe(200);
    await page.goto(`${app.baseUrl}/dashboard`);
    await expect(page.getByTestId("plan").textContent()).resolves.toBe("team");
    await page.fill("#vanity-sub", "alice-co");
    await page.getByRole("button", { name: "Claim" }).click();
    await page.getByText("Your subdomain:").waitFor();
    const res = await app.request(`alice-co--my-site.localhost:${app.port}`, "/");
    expect(res.status).toBe(200);
    expect(res.text).toBe("<h1>version two</h1>");
    expect((await app.request(`alice-co--nope.localhost:${app.port}`, "/")).status).toBe(404);
  });
});

describe("the embedded default: no identity provider configured, on localhost", () => {
  it("offers a clearly labelled local-developer login that reaches the dashboard", async () => {
    const bare = await startApp();
    const ctx = await browser.newContext();
    try {
      const p = await ctx.newPage();
      await p.goto(`${bare.baseUrl}/login`);
      await expect(p.getByRole("heading", { name: "Local developer login" }).count()).resolves.toBe(1);
      await p.fill("#dev-email", "dev@example.test");
      await p.getByRole("button", { name: "Sign in as this developer" }).click();
      await p.waitForURL(`${bare.baseUrl}/dashboard`);
      await expect(p.getByText("dev@example.test").count()).resolves.toBeGreaterThan(0);
      // Billing is not configured here: the dashboard says so with the service's hint.
      await p.getByRole("button", { name: "Upgrade to Pro" }).click();
      const alert = p.locator(".error[role=alert]");
      await alert.waitFor();
      await expect(alert.textContent()).resolves.toContain("upstream_unavailable");
    } finally {
      await ctx.close();
      await bare.stop();
    }
  });
});
