import { mkdir } from "node:fs/promises";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";

// Debian's Chromium driven by Playwright (Playwright cannot download its own browsers here).

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, "../../test-results/screenshots");

export const VIEWPORTS = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** Saves full-page screenshots of the current page at desktop and phone widths. */
export async function screenshots(page: Page, name: string): Promise<string[]> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const saved: string[] = [];
  const original = page.viewportSize();
  for (const [label, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    const file = path.join(SCREENSHOT_DIR, `${name}-${label}.png`);
    await page.screenshot({ path: file, fullPage: true });
    saved.push(file);
  }
  if (original) await page.setViewportSize(original);
  return saved;
}
