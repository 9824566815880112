import { mkdir } from "node:fs/promises";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import type { Pool } from "pg";
import { registerSecret } from "./secrets";

// Debian's Chromium driven by Playwright (Playwright cannot download its own browsers here).

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Drops files onto the page's drop zone, as a person dragging them there does. */
export async function dropFiles(target: Page, files: { name: string; body: string; type?: string }[]): Promise<void> {
  const dataTransfer = await target.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([f.body], f.name, { type: f.type ?? "" }));
    return dt;
  }, files);
  await target.getByTestId("dropzone").dispatchEvent("drop", { dataTransfer });
}

/** Committed: the README links to these. */
export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, "../../docs/screenshots");

export const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** Collects uncaught script errors of a page from now on; read the array at any time. */
export function scriptErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(`${page.url()}: ${err.message}`));
  return errors;
}

/**
 * What is wrong with the layout of the current page at the current width: the page scrolls
 * sideways, a code block is cut off without a scroll cue (a visible scrollbar), or a code block
 * has no copy button. Empty when all is well.
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth) {
      const wide = [...document.body.querySelectorAll<HTMLElement>("*")]
        .filter((el) => el.getBoundingClientRect().right > doc.clientWidth + 1 && el.getClientRects().length > 0)
        .slice(-3)
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
      problems.push(`page is ${doc.scrollWidth}px wide in a ${doc.clientWidth}px viewport (${wide.join(", ")})`);
    }
    document.querySelectorAll<HTMLElement>("pre").forEach((pre, i) => {
      const clipped = pre.scrollWidth > pre.clientWidth + 1;
      const style = getComputedStyle(pre);
      // A horizontal scrollbar is a cue only where it takes room (not an overlay that hides).
      const scrollbar =
        (style.overflowX === "auto" || style.overflowX === "scroll") &&
        pre.offsetHeight - pre.clientHeight - parseFloat(style.borderTopWidth) - parseFloat(style.borderBottomWidth) >
          0;
      if (clipped && !scrollbar)
        problems.push(`code block ${i + 1} is cut off without a scroll cue: ${pre.textContent?.slice(0, 40)}`);
      if (!pre.parentElement?.querySelector("button.copy"))
        problems.push(`code block ${i + 1} has no copy button: ${pre.textContent?.slice(0, 40)}`);
    });
    return problems;
  });
}

/**
 * At desktop and phone widths: the layout problems of the page, and a full-page screenshot
 * under docs/screenshots/<name>-<desktop|phone>.png.
 */
export async function inspectPage(page: Page, name: string): Promise<{ problems: string[]; screenshots: string[] }> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const problems: string[] = [];
  const saved: string[] = [];
  const original = page.viewportSize();
  for (const [label, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    for (const p of await layoutProblems(page)) problems.push(`${name} at ${size.width}px: ${p}`);
    const file = path.join(SCREENSHOT_DIR, `${name}-${label}.png`);
    await page.screenshot({ path: file, fullPage: true });
    saved.push(file);
  }
  if (original) await page.setViewportSize(original);
  return { problems, screenshots: saved };
}

/**
 * Logs in through the test OpenID provider's own pages (tests/support/oidc.ts: any password
 * works): the app's login button, the provider's login form, its consent when it asks, and back
 * to the dashboard.
 */
export async function loginWithProvider(page: Page, baseUrl: string, login: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await providerSignIn(page, login, `${baseUrl}/dashboard`);
}

/** The provider's sign-in from the app's login page the browser is on; waits for `until` (where the login leads). */
export async function providerSignIn(page: Page, login: string, until: string | RegExp): Promise<void> {
  await page.getByRole("button", { name: /Continue with/ }).click();
  await page.waitForURL(/\/interaction\//, { waitUntil: "domcontentloaded" });
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', "correct horse");
  await page.click("button.login-submit");
  await page.waitForLoadState("domcontentloaded");
  if (page.url().includes("/interaction/")) await page.click("button.login-submit");
  await page.waitForURL(until);
}

/** Fills the login page's development sign-in (the app without a social provider) with `email` and submits it. */
export async function devSignIn(page: Page, email: string): Promise<void> {
  await page.fill("#dev-email", email);
  await page.getByRole("button", { name: "Sign in as this developer" }).click();
}

/** A new page of `ctx` logged in as `email` through the development sign-in, on the dashboard. */
export async function devLogin(ctx: BrowserContext, baseUrl: string, email: string): Promise<Page> {
  const page = await ctx.newPage();
  await page.goto(`${baseUrl}/login`);
  await devSignIn(page, email);
  await page.waitForURL(`${baseUrl}/dashboard`);
  return page;
}

/** Mints an API key on the dashboard's keys page (as whoever the page acts as) and returns it. */
export async function mintOnDashboard(page: Page, baseUrl: string, note: string): Promise<string> {
  await page.goto(`${baseUrl}/dashboard/keys`);
  await page.fill("#key-note", note);
  await page.getByRole("button", { name: "Mint API key" }).click();
  await page.getByTestId("new-key-secret").waitFor();
  const key = (await page.getByTestId("new-key-secret").textContent())!.trim();
  registerSecret("api key", key);
  return key;
}

/**
 * Picks `label` in the dashboard's "Acting as" switcher ("Team (role)", or "email (you)" to act
 * as the person again) and waits for the header to say so.
 */
export async function switchActingAs(page: Page, label: string): Promise<void> {
  await page.getByLabel("Acting as").selectOption({ label });
  await page.getByRole("button", { name: "Switch" }).click();
  const acting = page.getByTestId("acting-team");
  if (label.endsWith("(you)")) await acting.waitFor({ state: "detached" });
  else await acting.filter({ hasText: `as ${label}` }).waitFor();
}

/**
 * A person with a team, for the teams' browser tests: `email` logs in, mints a key on the
 * dashboard, is put on the Team plan in the app's database (`db`, a pg pool) and creates the
 * team `name`/`slug` through the API with that key, which is returned.
 */
export async function personWithTeam(
  browser: Browser,
  baseUrl: string,
  opts: { email: string; name: string; slug: string; db: Pick<Pool, "query"> },
): Promise<string> {
  const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
  try {
    const key = await mintOnDashboard(await devLogin(ctx, baseUrl, opts.email), baseUrl, "team owner");
    await opts.db.query("update accounts set plan = 'team' where email = $1", [opts.email]);
    const res = await fetch(`${baseUrl}/teams`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: opts.name, slug: opts.slug }),
    });
    if (res.status !== 201) throw new Error(`POST /teams answered ${res.status}: ${await res.text()}`);
    return key;
  } finally {
    await ctx.close();
  }
}
