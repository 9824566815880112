import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext } from "playwright-core";
import { freePort, startApp, type RunningApp } from "../support/app-server";
import { CHROMIUM, launchChromium, loginWithProvider, VIEWPORTS } from "../support/browser";
import { axeViolations, hasFocus, tabTo } from "../support/a11y";
import { startOidcProvider, type OidcHarness } from "../support/oidc";

// The operators' page and the report form in a real browser against the built app (`npm run build`
// first): the /report form works without JavaScript; /admin is 404 to a signed-in non-operator,
// and for an operator (ADMIN_EMAILS, email verified by the provider) passes axe (WCAG 2.2 AA) and
// disables a reported drop from the keyboard, after which the drop answers 451; an owner
// suspended from the queue finds the suspension and the appeal form atop their dashboard. With a browser
// set up (RENDER_BROWSER_PATH), the report starts a render check and the queue shows the drop's
// screenshot; the drop host's 404 page links to the form with the address prefilled.

let app: RunningApp;
let oidc: OidcHarness;
let browser: Browser;
let slug = "";

beforeAll(async () => {
  const port = await freePort();
  oidc = await startOidcProvider({ redirectUris: [`http://localhost:${port}/api/auth/callback/oidc`] });
  app = await startApp(
    {
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: oidc.clientId,
      OIDC_CLIENT_SECRET: oidc.clientSecret,
      ADMIN_EMAILS: "ops@example.test",
      RENDER_BROWSER_PATH: CHROMIUM,
    },
    { port },
  );
  browser = await launchChromium();
  const res = await fetch(`${app.baseUrl}/deploy`, {
    method: "POST",
    body: "<!doctype html><title>Bank login</title><h1>Sign in to your bank</h1>",
    headers: { "content-type": "text/html" },
  });
  expect(res.status).toBe(200);
  slug = ((await res.json()) as { slug: string }).slug;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await oidc?.close();
});

const dropUrl = () => `http://${slug}.${app.serveDomain}/`;

describe("the /report form", () => {
  it("is linked from the drop host's 404 page with the address prefilled", async () => {
    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop, javaScriptEnabled: false });
    try {
      const page = await ctx.newPage();
      const missing = `${dropUrl()}no-such-page`;
      const res = await page.goto(missing);
      expect(res?.status()).toBe(404);
      await Promise.all([
        page.waitForURL(/\/report\?url=/, { waitUntil: "domcontentloaded" }),
        page.getByRole("link", { name: "Report abuse" }).click(),
      ]);
      expect(await page.inputValue("#report-url")).toBe(missing);
    } finally {
      await ctx.close();
    }
  });

  it("files a report without JavaScript, prefilled by ?url=", async () => {
    const ctx = await browser.newContext({ viewport: VIEWPORTS.phone, javaScriptEnabled: false });
    try {
      const page = await ctx.newPage();
      await page.goto(`${app.baseUrl}/report?url=${encodeURIComponent(dropUrl())}`);
      expect(await page.inputValue("#report-url")).toBe(dropUrl());
      await page.selectOption("#report-reason", "phishing");
      await page.fill("#report-details", "Imitates a bank's sign-in page.");
      await Promise.all([
        page.waitForURL(/\/report\?sent=rep_/, { waitUntil: "domcontentloaded" }),
        page.getByRole("button", { name: "Send report" }).click({ noWaitAfter: true }),
      ]);
      await expect(page.getByRole("heading", { name: "Report received" }).isVisible()).resolves.toBe(true);
    } finally {
      await ctx.close();
    }
    // axe runs in the page, so the form is checked in a context with JavaScript.
    const withJs = await browser.newContext({ viewport: VIEWPORTS.phone });
    try {
      const page = await withJs.newPage();
      await page.goto(`${app.baseUrl}/report?url=${encodeURIComponent(dropUrl())}`);
      expect(await axeViolations(page, "report form")).toEqual([]);
    } finally {
      await withJs.close();
    }
  });
});

describe("/admin", () => {
  let eve: BrowserContext;
  let ops: BrowserContext;
  beforeAll(async () => {
    eve = await browser.newContext({ viewport: VIEWPORTS.desktop });
    ops = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const a = await eve.newPage();
    await loginWithProvider(a, app.baseUrl, "eve");
    await a.close();
    const b = await ops.newPage();
    await loginWithProvider(b, app.baseUrl, "ops");
    await b.close();
  }, 120_000);
  afterAll(async () => {
    await eve?.close();
    await ops?.close();
  });

  it("is 404 to a signed-in account that is no operator", async () => {
    const page = await eve.newPage();
    const res = await page.goto(`${app.baseUrl}/admin`);
    expect(res?.status()).toBe(404);
    expect(await page.content()).not.toContain("Review queue");
  });

  it("shows the queue to an operator, passes axe, and disables a drop from the keyboard", async () => {
    const page = await ops.newPage();
    const res = await page.goto(`${app.baseUrl}/admin`);
    expect(res?.status()).toBe(200);
    await expect(page.getByRole("heading", { name: /Review queue/ }).isVisible()).resolves.toBe(true);
    const card = page.getByRole("article").filter({ hasText: slug });
    await expect(card.getByText("Imitates a bank's sign-in page.").isVisible()).resolves.toBe(true);
    // The report started a render check after its answer: the queue shows the drop's screenshot.
    const thumb = card.getByRole("img", { name: `Screenshot of ${dropUrl()} in a browser at 1280×800` });
    for (let i = 0; i < 60 && (await thumb.count()) === 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      await page.reload();
    }
    await expect(thumb.isVisible()).resolves.toBe(true);
    const src = await thumb.getAttribute("src");
    expect(src).toMatch(new RegExp(`^${app.baseUrl}/previews/[0-9a-f]{32}\\.png$`));
    const png = await fetch(src!);
    expect(png.status).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    await expect(thumb.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).resolves.toBe(1280);
    expect(await axeViolations(page, "admin")).toEqual([]);
    const disable = card.getByRole("button", { name: "Disable" });
    await tabTo(page, disable);
    expect(await hasFocus(disable)).toBe(true);
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/admin\?done=/);
    await expect(page.getByRole("status").textContent()).resolves.toContain(`Disabled ${slug}`);
    const served = await app.request(`${slug}.${app.serveDomain}`, "/");
    expect(served.status).toBe(451);
  });

  it("suspending an owner from the queue: their dashboard says so at the top of every page, with the appeal form, and is read-only; axe passes", async () => {
    const page = await eve.newPage();
    // Eve mints a key on her dashboard and deploys with it.
    await page.goto(`${app.baseUrl}/dashboard/keys`);
    await page.getByRole("button", { name: "Mint API key" }).click();
    const apiKey = (await page.getByTestId("new-key-secret").textContent())!.trim();
    const deployed = await fetch(`${app.baseUrl}/deploy`, {
      method: "POST",
      body: JSON.stringify({
        files: { "index.html": "<!doctype html><title>Prizes</title><h1>You won a prize</h1>", _redirects: "/old /\n" },
      }),
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
    });
    expect(deployed.status).toBe(200);
    const { url, slug: evesSlug } = (await deployed.json()) as { url: string; slug: string };
    expect(await page.getByTestId("suspended").count()).toBe(0);
    const report = await fetch(`${app.baseUrl}/reports`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url, reason: "spam" }),
    });
    expect(report.status).toBe(202);

    const queue = await ops.newPage();
    await queue.goto(`${app.baseUrl}/admin`);
    await queue
      .getByRole("article")
      .filter({ hasText: evesSlug })
      .getByRole("button", { name: "Suspend owner" })
      .click();
    await queue.waitForURL(/\/admin\?done=/);
    await queue.close();

    for (const path of ["/dashboard", "/dashboard/keys"]) {
      await page.goto(`${app.baseUrl}${path}`);
      const notice = page.getByTestId("suspended");
      expect(await notice.getAttribute("role")).toBe("alert");
      await expect(notice.textContent()).resolves.toContain("Your account is suspended (other).");
      expect(await notice.getByRole("link", { name: "Appeal with the report form" }).getAttribute("href")).toBe(
        `${app.baseUrl}/report?reason=appeal`,
      );
      expect(await axeViolations(page, `${path}, suspended`)).toEqual([]);
    }
    // Read-only: the page's controls are disabled (the server would refuse each anyway).
    await expect(page.getByRole("button", { name: "Mint API key" }).isDisabled()).resolves.toBe(true);
    expect((await app.request(`${evesSlug}.${app.serveDomain}`, "/")).status).toBe(451);
    // The drop page says why its preview shows nothing (no frame of the 451), and its table of
    // contents lists every section it has, the site rules included.
    await page.goto(`${app.baseUrl}/dashboard/drops/${evesSlug}`);
    await expect(page.getByTestId("preview-blocked").textContent()).resolves.toContain("this account is suspended");
    expect(await page.getByTestId("drop-preview").count()).toBe(0);
    const targets = await page
      .getByRole("navigation", { name: "On this page" })
      .getByRole("link")
      .evaluateAll((links) => links.map((a) => a.getAttribute("href")!));
    expect(targets).toContain("#rules-title");
    for (const hash of targets) await expect(page.locator(hash).count(), hash).resolves.toBe(1);
    expect(await axeViolations(page, "drop page, disabled")).toEqual([]);
    await page.close();
  });
});
