import { mkdir, mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { freePort, startApp, type RunningApp } from "../support/app-server";
import { startOidcProvider, type OidcHarness } from "../support/oidc";
import { startStripeStandin, type StripeStandin } from "../support/stripe-standin";
import { dropFiles, inspectPage, launchChromium, loginWithProvider, scriptErrors, VIEWPORTS } from "../support/browser";
import { limits } from "@/lib/plans";
import Stripe from "stripe";
import { unzipSync } from "fflate";

// A person in a real browser, at desktop (1280 px) and phone (390 px) widths: anonymous drag and
// drop with the deploy result, folder deploys that leave out what the command-line client leaves
// out, login through a real OpenID provider, the dashboard (expiry, claiming by token, the page
// per drop with its preview, keys, deletion) and upgrading. Every page is inspected at both
// widths for sideways scrolling, cut-off code blocks and script errors; the screenshots go to
// docs/screenshots/.

let app: RunningApp;
let oidc: OidcHarness;
let stripe: StripeStandin;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let errors: string[];
let anonymousSlug = "";
let apiSlug = "";
let shortSlug = "";
const problems: string[] = [];

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
  context = await browser.newContext({ viewport: VIEWPORTS.desktop, acceptDownloads: true });
  // The provider's login page asks for a web font; there is no internet here.
  await context.route("https://fonts.googleapis.com/**", (r) => r.abort());
  await context.route("https://fonts.gstatic.com/**", (r) => r.abort());
  // Checkout lives at Stripe; the stand-in's session URL is answered here.
  await context.route("https://checkout.stripe.test/**", (r) =>
    r.fulfill({ status: 200, contentType: "text/html", body: "<h1>Stripe Checkout (stand-in)</h1>" }),
  );
  page = await context.newPage();
  errors = scriptErrors(page);
  // The first request that touches the database opens it (PGlite and migrations), which can take
  // a while on a busy machine; do it here rather than inside the first drag and drop.
  const warm = await fetch(`${app.baseUrl}/deploy`, {
    method: "POST",
    body: "<p>warm-up</p>",
    headers: { "content-type": "text/html" },
  });
  expect(warm.status).toBe(200);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await oidc?.close();
  await stripe?.close();
});

const api = (path: string, init: RequestInit = {}) => fetch(`${app.baseUrl}${path}`, init);

/** Inspects the current page at both widths; layout problems are collected and must stay none. */
async function inspect(name: string) {
  const r = await inspectPage(page, name);
  problems.push(...r.problems);
  expect(r.problems).toEqual([]);
  expect(errors).toEqual([]);
  for (const s of r.screenshots) expect((await stat(s)).size).toBeGreaterThan(5_000);
}

describe("the app host for browsers", () => {
  it("an unknown path is an HTML page for browsers and the envelope for API clients; there is a favicon", async () => {
    const res = await page.goto(`${app.baseUrl}/dashbaord`);
    expect(res?.status()).toBe(404);
    expect(res?.headers()["content-type"]).toContain("text/html");
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Page not found");
    await expect(page.locator("code").first().textContent()).resolves.toBe("/dashbaord");
    await inspect("not-found");
    const json = await api("/dashbaord");
    expect(json.status).toBe(404);
    expect((await json.json()).code).toBe("not_found");
    const icon = await api("/icon.svg");
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toContain("image/svg+xml");
    await page.goto(app.baseUrl);
    await expect(page.locator('link[rel="icon"]').first().getAttribute("href")).resolves.toContain("icon");
  });
});

describe("the landing page", () => {
  it("explains the service, shows pricing from the plan table, fits both widths and does not shift", async () => {
    await page.goto(app.baseUrl);
    await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toContain("Publish a static site");
    await expect(page.getByTestId("plan-pro").textContent()).resolves.toContain(
      `${limits.pro.filesPerRequest} files per deploy`,
    );
    await expect(page.getByTestId("plan-team").textContent()).resolves.toContain("Your own subdomain");
    // "Free" once on the free card: the heading, and a price in dollars.
    const free = (await page.getByTestId("plan-free").textContent()) ?? "";
    expect(free.match(/free/gi)).toHaveLength(1);
    expect(free).toContain("$0");
    // Examples use this server's address.
    await expect(page.locator("pre").first().textContent()).resolves.toContain(`${app.baseUrl}/deploy`);
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
            for (const e of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[])
              if (!e.hadRecentInput) total += e.value;
          }).observe({ type: "layout-shift", buffered: true });
          setTimeout(() => resolve(total), 500);
        }),
    );
    expect(cls).toBeLessThan(0.05);
    await expect(page.getByRole("button", { name: "Choose a folder" }).isVisible()).resolves.toBe(true);
    await inspect("landing");
  });

  it("offers phones no folder picker, and the copy button copies a code block", async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    await page.goto(app.baseUrl);
    await expect(page.getByRole("button", { name: "Choose a folder" }).isVisible()).resolves.toBe(false);
    await expect(page.getByRole("button", { name: "Choose files" }).isVisible()).resolves.toBe(true);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.baseUrl });
    await page.getByRole("button", { name: "Copy the curl example" }).click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toContain(
      "curl --data-binary @index.html",
    );
    await expect(page.getByRole("button", { name: "Copy the curl example" }).textContent()).resolves.toBe("Copied");
    await page.setViewportSize(VIEWPORTS.desktop);
  });

  it("deploys dropped files anonymously: progress in bytes and files, then URL, QR code, expiry, files with sizes and the claim token to keep", async () => {
    await page.goto(app.baseUrl);
    // Record every state of the progress line (a local upload is too quick to catch otherwise).
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      new MutationObserver(() => {
        const el = document.querySelector('[data-testid="upload-progress"]');
        if (el?.textContent) seen.push(el.textContent);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await dropFiles(page, [
      {
        name: "index.html",
        body: '<!doctype html><link rel="stylesheet" href="style.css"><h1 id="hi">Hello from the browser</h1>',
        type: "text/html",
      },
      { name: "style.css", body: "#hi { color: rgb(200, 0, 0); }", type: "text/css" },
    ]);
    const link = page.getByTestId("deployed-url");
    await link.waitFor({ timeout: 30_000 });
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    expect(seen.some((t) => /^[0-2] of 2 files: [\d.]+ (B|KB) of [\d.]+ (B|KB) sent \(\d+%\)$/.test(t))).toBe(true);
    const url = (await link.getAttribute("href"))!;
    expect(url).toMatch(new RegExp(`^http://[a-z2-7]{20}\\.localhost:${app.port}/$`));
    anonymousSlug = new URL(url).hostname.split(".")[0]!;
    // QR code, expiry in words and as a date, the files with their sizes.
    await page.getByTestId("qr-code").waitFor();
    await expect(page.getByTestId("qr-code").getAttribute("src")).resolves.toMatch(/^data:image\/png;base64,/);
    const expiry = (await page.getByTestId("deployed-expiry").textContent()) ?? "";
    expect(expiry).toMatch(new RegExp(`in ${limits.anonymous.ttlDefaultSeconds! / 86_400} days`));
    expect(expiry).toMatch(/\d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC/);
    const files = (await page.getByTestId("deployed-files").textContent()) ?? "";
    expect(files).toContain("2 files");
    expect(files).toMatch(/index\.html\s*\d+ B/);
    expect(files).toMatch(/style\.css\s*30 B/);
    // The claim token: explained, copyable, downloadable, and remembered by this browser.
    const token = ((await page.getByTestId("claim-token").textContent()) ?? "").trim();
    expect(token.length).toBeGreaterThan(20);
    await expect(page.getByTestId("claim-token-box").textContent()).resolves.toContain("Keep this claim token");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("download-token").click()]);
    expect(download.suggestedFilename()).toBe(`dropsite-claim-${anonymousSlug}.json`);
    const saved = JSON.parse(await readFile(await download.path(), "utf8"));
    expect(saved).toMatchObject({ slug: anonymousSlug, url, claim_token: token });
    await page.getByRole("button", { name: "Copy the claim token" }).click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(token);
    const pending = await page.evaluate(() => localStorage.getItem("dropsite:pending-claims"));
    expect(pending).toContain(anonymousSlug);
    await inspect("landing-deployed");
    const site = await context.newPage();
    await site.goto(url);
    await expect(site.locator("#hi").textContent()).resolves.toBe("Hello from the browser");
    await expect(site.locator("#hi").evaluate((el) => getComputedStyle(el).color)).resolves.toBe("rgb(200, 0, 0)");
    await site.close();
  });

  it("a folder deploy leaves out .git, ignored files and dotfiles, and shows what it left out before sending and in the result", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "dropsite-folder-"));
    const dir = path.join(root, "site");
    await mkdir(path.join(dir, ".git"), { recursive: true });
    await mkdir(path.join(dir, "sub"), { recursive: true });
    await writeFile(path.join(dir, "index.html"), "<h1>folder</h1>");
    await writeFile(path.join(dir, "sub", "page.html"), "<p>sub</p>");
    await writeFile(path.join(dir, ".env"), "SECRET=1");
    await writeFile(path.join(dir, ".gitignore"), "*.log\n");
    await writeFile(path.join(dir, "debug.log"), "noise");
    await writeFile(path.join(dir, ".git", "HEAD"), "ref: refs/heads/main");
    await page.goto(app.baseUrl);
    await page.getByTestId("folder-input").setInputFiles(dir);
    const review = page.getByTestId("deploy-review");
    await review.waitFor();
    const text = (await review.textContent()) ?? "";
    expect(text).toContain("2 files");
    for (const left of ["site/.env", "site/.gitignore", "site/debug.log", "site/.git/HEAD"])
      expect(text).toContain(left);
    expect(text).toContain("matched by site/.gitignore");
    await inspect("landing-folder-review");
    await review.getByRole("button", { name: "Publish 2 files" }).click();
    const link = page.getByTestId("deployed-url");
    await link.waitFor({ timeout: 30_000 });
    const host = new URL((await link.getAttribute("href"))!).host;
    await expect(page.getByTestId("deployed-files").textContent()).resolves.toMatch(/index\.html\s*15 B/);
    // The result lists again what was left out, with the reason.
    const leftOut = (await page.getByTestId("deployed-left-out").textContent()) ?? "";
    expect(leftOut).toContain("4 files left out");
    for (const left of ["site/.env", "site/.gitignore", "site/debug.log", "site/.git/HEAD"])
      expect(leftOut).toContain(left);
    expect(leftOut).toContain("dotfile (may hold secrets)");
    expect((await app.request(host, "/")).text).toBe("<h1>folder</h1>");
    expect((await app.request(host, "/sub/page.html")).status).toBe(200);
    for (const p of ["/.env", "/debug.log", "/.git/HEAD", "/.gitignore"])
      expect((await app.request(host, p)).status).toBe(404);
  });

  it("lists what the deploy report found under the result", async () => {
    await page.goto(app.baseUrl);
    await dropFiles(page, [
      { name: "index.html", body: '<h1>report</h1><img src="img/missing.png">', type: "text/html" },
    ]);
    const report = page.getByTestId("deploy-report");
    await report.waitFor({ timeout: 30_000 });
    const text = (await report.textContent()) ?? "";
    expect(text).toContain("0 warnings, 1 missing reference");
    expect(text).toContain("img/missing.png");
    await inspect("landing-deploy-report");
  });

  it("shows the error and its hint when a deploy is refused", async () => {
    await page.goto(app.baseUrl);
    await dropFiles(page, [{ name: "site.zip", body: "not really a zip", type: "application/zip" }]);
    const alert = page.locator(".error[role=alert]");
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toContain("invalid_zip");
  });
  it("takes no second drop while a deploy is on its way: nothing of it is sent, the first deploy finishes", async () => {
    await page.goto(app.baseUrl);
    // The first deploy's first request waits here until the second drop has been tried.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    let first = true;
    const bodies: string[] = [];
    await page.route("**/*", async (route) => {
      const req = route.request();
      if (req.method() !== "GET") bodies.push(req.postDataBuffer()?.toString("latin1") ?? "");
      if (req.method() === "POST" && first) {
        first = false;
        holding();
        await gate;
      }
      await route.continue();
    });
    try {
      await dropFiles(page, [{ name: "index.html", body: "<h1>FIRST-DROP</h1>", type: "text/html" }]);
      await held;
      await expect(page.getByRole("button", { name: "Choose files" }).isDisabled()).resolves.toBe(true);
      await dropFiles(page, [{ name: "index.html", body: "<h1>SECOND-DROP</h1>", type: "text/html" }]);
      release();
      const link = page.getByTestId("deployed-url");
      await link.waitFor({ timeout: 30_000 });
      const host = new URL((await link.getAttribute("href"))!).host;
      expect((await app.request(host, "/")).text).toBe("<h1>FIRST-DROP</h1>");
      // A second deploy, had the drop been taken, would have started by now.
      await page.waitForTimeout(500);
      expect(bodies.some((b) => b.includes("FIRST-DROP"))).toBe(true);
      expect(bodies.filter((b) => b.includes("SECOND-DROP"))).toEqual([]);
    } finally {
      release();
      await page.unroute("**/*");
    }
  });
});

describe("the docs", () => {
  it("have the site header, this server's addresses, numbers from the plan table and correct setup steps", async () => {
    await page.goto(`${app.baseUrl}/docs`);
    await expect(page.locator("header.site-header").count()).resolves.toBe(1);
    const text = (await page.locator("main").textContent()) ?? "";
    expect(text).toContain(`${app.baseUrl}/deploy`);
    expect(text).toContain(`${limits.pro.filesPerRequest} files per request`);
    expect(text).toContain(`${limits.pro.zipBytes / 1024 / 1024} MB zips`);
    // DNS has no ports: the wildcard is for the serve domain's host.
    expect(text).toContain("*.localhost");
    expect(text).not.toMatch(/\*\.localhost:\d/);
    expect(text).toContain("npm install && npm run build");
    expect(text).not.toContain("npm ci");
    await expect(page.locator(".code-block").count()).resolves.toBeGreaterThan(10);
    await inspect("docs");
  });

  it("render docs/*.md at /docs/<name>, linked from the guide; an unknown name is the 404", async () => {
    await page.goto(`${app.baseUrl}/docs`);
    await page.locator('#documents a[href="/docs/webhooks"]').click();
    await page.waitForURL(`${app.baseUrl}/docs/webhooks`);
    await expect(page.locator("h1").textContent()).resolves.toBe("Webhooks");
    await expect(page.locator('main a[href="/docs/contract#webhooks-addition"]').count()).resolves.toBe(1);
    await expect(page.locator("main .code-block").count()).resolves.toBeGreaterThan(2);
    expect((await page.goto(`${app.baseUrl}/docs/no-such-doc`))!.status()).toBe(404);
  });

  it("the login page fits both widths", async () => {
    await page.goto(`${app.baseUrl}/login`);
    await inspect("login");
  });
});

describe("an account in the browser", () => {
  it("logs in through the OpenID provider's real redirect flow and sees its drops", async () => {
    // Drops made through the API with an ID token of the same person; one expires in a minute.
    const token = await oidc.mintIdToken({ sub: "alice", email: "alice@example.test" });
    const res = await api("/deploy", {
      method: "POST",
      body: "<h1>from the API</h1>",
      headers: { authorization: `Bearer ${token}`, "content-type": "text/html" },
    });
    expect(res.status).toBe(200);
    apiSlug = (await res.json()).slug;
    const short = await api(`/deploy?ttl=${limits.free.ttlMinSeconds}`, {
      method: "POST",
      body: "<h1>brief</h1>",
      headers: { authorization: `Bearer ${token}`, "content-type": "text/html" },
    });
    expect(short.status).toBe(200);
    shortSlug = (await short.json()).slug;

    await loginWithProvider(page, app.baseUrl, "alice");
    await expect(page.getByText("alice@example.test").count()).resolves.toBeGreaterThan(0);
    await page.getByTestId(`drop-${apiSlug}`).waitFor();
    // The session cookie is httpOnly and scoped to the app host.
    const cookies = await context.cookies(app.baseUrl);
    const session = cookies.find((c) => c.name.includes("next-auth.session-token"));
    expect(session?.httpOnly).toBe(true);
    expect(session?.domain).toBe("localhost");
  });

  it("shows expiry in words with the date on hover", async () => {
    const expires = page.getByTestId(`drop-${apiSlug}`).locator('td[data-label="Expires"] time');
    await expect(expires.textContent()).resolves.toBe(`in ${limits.free.ttlDefaultSeconds! / 86_400} days`);
    await expect(expires.getAttribute("title")).resolves.toMatch(/\d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC/);
  });

  it("claims the anonymous drop made before logging in", async () => {
    await page.getByTestId(`claim-${anonymousSlug}`).getByRole("button", { name: "Claim" }).click();
    await page.getByTestId(`drop-${anonymousSlug}`).waitFor();
    const token = await oidc.mintIdToken({ sub: "alice" });
    const list = await (await api("/drops", { headers: { authorization: `Bearer ${token}` } })).json();
    expect(list.drops.map((d: { slug: string }) => d.slug).sort()).toEqual([anonymousSlug, apiSlug, shortSlug].sort());
  });

  it("claims a drop deployed with curl by pasting its URL and token", async () => {
    const res = await api("/deploy", {
      method: "POST",
      body: "<h1>from curl</h1>",
      headers: { "content-type": "text/html" },
    });
    const made = (await res.json()) as { slug: string; url: string; claim_token: string };
    await page.fill("#claim-drop", made.url);
    await page.fill("#claim-token", "not-the-token");
    await page.getByRole("button", { name: "Claim drop" }).click();
    await expect(page.getByTestId("claim-form").locator(".error").textContent()).resolves.toContain("not_found");
    await page.fill("#claim-token", made.claim_token);
    await page.getByRole("button", { name: "Claim drop" }).click();
    await page.getByTestId(`drop-${made.slug}`).waitFor();
    await expect(page.getByTestId("claim-form").getByRole("status").textContent()).resolves.toContain(made.url);
  });

  it("keeps actions and expiry in view on a phone: the drops table becomes cards", async () => {
    await page.setViewportSize(VIEWPORTS.phone);
    const row = page.getByTestId(`drop-${apiSlug}`);
    const del = await row.getByRole("button", { name: /^Delete/ }).boundingBox();
    expect(del).not.toBeNull();
    expect(del!.x + del!.width).toBeLessThanOrEqual(VIEWPORTS.phone.width);
    await expect(row.locator('td[data-label="Expires"]').isVisible()).resolves.toBe(true);
    // Each card cell names itself (the table's header row is not shown on phones).
    await expect(
      row.locator('td[data-label="Expires"]').evaluate((el) => getComputedStyle(el, "::before").content),
    ).resolves.toBe('"Expires"');
    await page.setViewportSize(VIEWPORTS.desktop);
    await inspect("dashboard");
  });

  it("a page per drop shows its files and sizes and previews it from the drop's own origin", async () => {
    await page.getByTestId(`drop-${apiSlug}`).getByRole("link", { name: apiSlug, exact: true }).click();
    await page.waitForURL(`${app.baseUrl}/dashboard/drops/${apiSlug}`);
    await expect(page.getByTestId("drop-files").textContent()).resolves.toMatch(/index\.html\s*21 B/);
    const src = (await page.getByTestId("drop-preview").getAttribute("src"))!;
    expect(new URL(src).origin).toBe(`http://${apiSlug}.localhost:${app.port}`);
    expect(new URL(src).origin).not.toBe(app.baseUrl);
    await expect(page.frameLocator('[data-testid="drop-preview"]').locator("h1").textContent()).resolves.toBe(
      "from the API",
    );
    // The versions of the drop: one, live, so no "Make live" button.
    await expect(page.getByTestId("drop-versions").locator("tbody tr").count()).resolves.toBe(1);
    await expect(page.getByTestId("drop-versions").textContent()).resolves.toMatch(/1 \(live\).*deploy.*21 B/);
    await expect(
      page
        .getByTestId("drop-versions")
        .getByRole("button", { name: /Make live/ })
        .count(),
    ).resolves.toBe(0);
    await page.getByRole("button", { name: "Copy the URL" }).click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(src);
    await inspect("drop-page");
    const other = await page.goto(`${app.baseUrl}/dashboard/drops/nosuchdrop`);
    expect(other?.status()).toBe(404);
  });

  it("marks an expired drop as expired and offline", { timeout: 150_000 }, async () => {
    // The short drop was deployed with the shortest ttl; wait until its host answers 410.
    const deadline = Date.now() + 120_000;
    while ((await app.request(`${shortSlug}.localhost:${app.port}`, "/")).status !== 410) {
      if (Date.now() > deadline) throw new Error("the short drop never expired");
      await new Promise((r) => setTimeout(r, 2000));
    }
    await page.goto(`${app.baseUrl}/dashboard`);
    const row = page.getByTestId(`drop-${shortSlug}`);
    await expect(row.getByTestId("state-expired").textContent()).resolves.toContain("Expired");
    await expect(row.locator('td[data-label="Expires"]').textContent()).resolves.toMatch(/^expired (.* ago|just now)$/);
    await expect(page.getByTestId(`drop-${apiSlug}`).getByTestId("state-expired").count()).resolves.toBe(0);
  });

  it("mints a key shown once, which works with the API until it is revoked", async () => {
    await page.goto(`${app.baseUrl}/dashboard/keys`);
    await page.fill("#key-note", "browser test");
    await page.getByRole("button", { name: "Mint API key" }).click();
    const secretEl = page.getByTestId("new-key-secret");
    await secretEl.waitFor();
    const apiKey = (await secretEl.textContent())!.trim();
    expect(apiKey).toMatch(/^sp_[A-Za-z0-9_-]{43}$/);
    await inspect("dashboard-key-minted");
    const ok = await api("/drops", { headers: { authorization: `Bearer ${apiKey}` } });
    expect(ok.status).toBe(200);
    expect((await ok.json()).total).toBe(4);
    await page.getByRole("button", { name: `Revoke key ${apiKey.slice(0, 10)}` }).click();
    await page.getByTestId(`key-${apiKey.slice(0, 10)}`).waitFor({ state: "detached" });
    await expect(page.getByTestId("new-key").count()).resolves.toBe(0);
    const after = await api("/drops", { headers: { authorization: `Bearer ${apiKey}` } });
    expect(after.status).toBe(401);
    expect((await after.json()).code).toBe("auth_required");
  });

  it("deletes a drop after confirmation in a dialog that moves nothing on the page, and its URL stops serving", async () => {
    await page.goto(`${app.baseUrl}/dashboard`);
    const row = page.getByTestId(`drop-${anonymousSlug}`);
    // Where the table sits on the page (not in the viewport: clicking may scroll).
    const box = () =>
      page.locator("table.drops-table").evaluate((el) => {
        const r = el.getBoundingClientRect();
        return { top: r.top + window.scrollY, left: r.left + window.scrollX, width: r.width, height: r.height };
      });
    const before = await box();
    await row.getByRole("button", { name: /^Delete/ }).click();
    const dialog = page.getByTestId("confirm-dialog");
    await dialog.waitFor();
    expect(await box()).toEqual(before);
    await dialog.getByRole("button", { name: "Confirm delete" }).click();
    await row.waitFor({ state: "detached" });
    const res = await app.request(`${anonymousSlug}.localhost:${app.port}`, "/");
    expect([404, 410]).toContain(res.status);
  });

  it("Upgrade leads to the Checkout URL the Stripe stand-in created", async () => {
    await page.goto(`${app.baseUrl}/dashboard/billing`);
    await page.getByRole("button", { name: "Upgrade to Pro" }).click();
    await page.waitForURL(/checkout\.stripe\.test/);
    const created = stripe.requestsTo("/v1/checkout/sessions", "POST");
    expect(created).toHaveLength(1);
    expect(page.url()).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_/);
    await expect(page.locator("h1").textContent()).resolves.toContain("Stripe Checkout");
  });

  it("after Stripe reports the subscription, the dashboard deploys a named drop and its page redeploys it in place", async () => {
    const session = stripe.requestsTo("/v1/checkout/sessions", "POST")[0]!;
    const form = session.body;
    const accountId = String(form.client_reference_id);
    const customer = String(form.customer);
    const sub = stripe.putSubscription({ customer, price: "price_pro_test", metadata: { accountId } });
    const created = Math.floor(Date.now() / 1000);
    const event = {
      id: `evt_browser_${created}`,
      object: "event",
      created,
      type: "checkout.session.completed",
      data: {
        object: {
          id: "cs_browser",
          object: "checkout.session",
          mode: "subscription",
          customer,
          subscription: sub.id,
          client_reference_id: accountId,
        },
      },
    };
    const payload = JSON.stringify(event);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: "whsec_browser_test" });
    const hook = await api("/billing/webhook", {
      method: "POST",
      body: payload,
      headers: { "content-type": "application/json", "stripe-signature": signature },
    });
    expect(hook.status).toBe(200);

    await page.goto(`${app.baseUrl}/dashboard/billing`);
    await expect(page.getByTestId("plan").textContent()).resolves.toBe("pro");
    await page.getByRole("button", { name: "Manage billing" }).waitFor();
    await page.goto(`${app.baseUrl}/dashboard`);
    await page.fill("#drop-name", "my-site");
    const drop = async (html: string) => {
      await dropFiles(page, [{ name: "index.html", body: html, type: "text/html" }]);
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
    // The drop's own page takes a new version by drag and drop.
    await page.goto(`${app.baseUrl}/dashboard/drops/${label}`);
    const third = await drop("<h1>version three</h1>");
    expect(third).toBe(first);
    expect((await app.request(`${label}.localhost:${app.port}`, "/")).text).toBe("<h1>version three</h1>");

    // Its versions, newest first, each older one with a "Make live" button behind a modal dialog.
    await page.reload();
    const table = page.getByTestId("drop-versions");
    await expect(table.locator("tbody tr").count()).resolves.toBe(3);
    await expect(table.locator("tbody tr").first().textContent()).resolves.toMatch(/^3 \(live\)/);
    await table.getByRole("button", { name: "Make live: version 1" }).click();
    const dialog = page.getByTestId("rollback-dialog");
    await dialog.waitFor();
    await expect(page.getByRole("dialog", { name: "Make version 1 live?" }).count()).resolves.toBe(1);
    await expect(dialog.evaluate((d) => d.matches(":modal") && d.contains(document.activeElement))).resolves.toBe(true);
    await expect(dialog.getByRole("heading").textContent()).resolves.toBe("Make version 1 live?");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect((await app.request(`${label}.localhost:${app.port}`, "/")).text).toBe("<h1>version three</h1>");
    await table.getByRole("button", { name: "Make live: version 1" }).click();
    await dialog.getByRole("button", { name: "Make live" }).click();
    await page.waitForFunction(() =>
      document.querySelector('[data-testid="drop-versions"] tbody tr:last-child')?.textContent?.startsWith("1 (live)"),
    );
    await expect(table.getByRole("button", { name: "Make live: version 3" }).count()).resolves.toBe(1);
    expect((await app.request(`${label}.localhost:${app.port}`, "/")).text).toBe("<h1>version one</h1>");
    // Every version row downloads its archive, as the session's account.
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      table.getByRole("link", { name: "Download .zip of version 2" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^[a-z0-9-]+-v2\.zip$/);
    const archived = unzipSync(new Uint8Array(await readFile(await download.path())));
    expect(Object.keys(archived)).toEqual(["index.html"]);
    expect(new TextDecoder().decode(archived["index.html"])).toBe("<h1>version two</h1>");
    await inspect("drop-page-versions");
  });

  it("the dashboard redeploys a folder by content: the second time every file is unchanged", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "dropsite-dash-folder-"));
    await writeFile(path.join(dir, "index.html"), "<h1>folder by content</h1>");
    await writeFile(path.join(dir, "app.js"), "console.log('same');");
    const deployOnce = async () => {
      await page.goto(`${app.baseUrl}/dashboard`);
      await page.fill("#drop-name", "folder-site");
      await page.getByTestId("folder-input").setInputFiles(dir);
      await page.getByTestId("deployed-unchanged").waitFor({ timeout: 30_000 });
      return {
        unchanged: await page.getByTestId("deployed-unchanged").textContent(),
        url: (await page.getByTestId("deployed-url").getAttribute("href"))!,
      };
    };
    const first = await deployOnce();
    expect(first.unchanged).toBe("0 of 2 files unchanged (not uploaded again).");
    const second = await deployOnce();
    expect(second.unchanged).toBe("2 of 2 files unchanged (not uploaded again).");
    expect(second.url).toBe(first.url);
    expect((await app.request(new URL(first.url).host, "/")).text).toBe("<h1>folder by content</h1>");
  });

  it("on Team, claims a vanity subdomain that serves the named drop", async () => {
    const session = stripe.requestsTo("/v1/checkout/sessions", "POST")[0]!;
    const form = session.body;
    const team = stripe.putSubscription({
      customer: String(form.customer),
      price: "price_team_test",
      metadata: { accountId: String(form.client_reference_id) },
    });
    const created = Math.floor(Date.now() / 1000) + 5;
    const payload = JSON.stringify({
      id: `evt_browser_team_${created}`,
      object: "event",
      created,
      type: "customer.subscription.updated",
      data: { object: team },
    });
    const hook = await api("/billing/webhook", {
      method: "POST",
      body: payload,
      headers: {
        "content-type": "application/json",
        "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload, secret: "whsec_browser_test" }),
      },
    });
    expect(hook.status).toBe(200);
    await page.goto(`${app.baseUrl}/dashboard/billing`);
    await expect(page.getByTestId("plan").textContent()).resolves.toBe("team");
    await page.goto(`${app.baseUrl}/dashboard/domains`);
    await page.fill("#vanity-sub", "alice-co");
    await page.locator("form:has(#vanity-sub)").getByRole("button", { name: "Claim", exact: true }).click();
    await page.getByText("Your subdomain:").waitFor();
    const res = await app.request(`alice-co--my-site.localhost:${app.port}`, "/");
    expect(res.status).toBe(200);
    // The drop was rolled back to version 1 on its page: the vanity host serves that version too.
    expect(res.text).toBe("<h1>version one</h1>");
    expect((await app.request(`alice-co--nope.localhost:${app.port}`, "/")).status).toBe(404);
    await inspect("dashboard-team");
  });

  it("no page had a layout problem or a script error", () => {
    expect(problems).toEqual([]);
    expect(errors).toEqual([]);
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
      await p.goto(`${bare.baseUrl}/dashboard/billing`);
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
