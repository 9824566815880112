import { mkdir } from "node:fs/promises";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";

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
  await page.getByRole("button", { name: /Continue with/ }).click();
  await page.waitForURL(/\/interaction\//, { waitUntil: "domcontentloaded" });
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', "correct horse");
  await page.click("button.login-submit");
  await page.waitForLoadState("domcontentloaded");
  if (page.url().includes("/interaction/")) await page.click("button.login-submit");
  await page.waitForURL(`${baseUrl}/dashboard`);
}
