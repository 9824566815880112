import { AxeBuilder } from "@axe-core/playwright";
import type { Locator, Page } from "playwright-core";

// Accessibility checks for the browser tests: axe-core (the maintained Playwright integration)
// over WCAG 2.0, 2.1 and 2.2 at levels A and AA, and what a keyboard user needs: a focus ring on
// whatever has focus, and a way to Tab to a control.

/** The rule sets the pages must pass: WCAG 2.2 AA and everything below it. */
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"];

/**
 * Every axe violation of the page once it has settled, of any impact, one line each naming the
 * page, the rule, its impact and the elements (CSS selectors and a piece of their HTML). Empty
 * when the page passes.
 *
 * "Settled": Next streams a page's metadata after its body, and the dashboard fetches its server
 * data again after every server action, so for a moment after a navigation or an action the
 * <title> may be missing (CI caught it twice, once after the title had already been seen). A page
 * that fails is looked at again every half second for up to five seconds, and what it shows last
 * is the answer: a transient state passes, a page that keeps a violation still fails.
 */
export async function axeViolations(page: Page, name: string): Promise<string[]> {
  await page.waitForFunction(() => document.title.trim() !== "", null, { timeout: 5_000 }).catch(() => {});
  const until = Date.now() + 5_000;
  let found = await axeOnce(page, name);
  while (found.length > 0 && Date.now() < until) {
    await page.waitForTimeout(500);
    found = await axeOnce(page, name);
  }
  return found;
}

async function axeOnce(page: Page, name: string): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(WCAG_TAGS).analyze();
  return results.violations.flatMap((v) =>
    v.nodes.map((n) => {
      const detail = (n.failureSummary ?? "").replace(/\s+/g, " ").trim();
      return `${name}: ${v.id} (${v.impact ?? "unknown impact"}): ${v.help}: ${n.target.join(" >> ")} ${n.html.slice(0, 160)} ${detail}`.trim();
    }),
  );
}

export interface FocusStop {
  /** tag, id, classes and accessible-ish name of the focused element */
  element: string;
  /** Whether a focus indicator is drawn: an outline at least 2 px wide. */
  ring: boolean;
}

/** What has focus now and whether it shows it. Focus inside a frame (a drop's preview) counts as the frame's. */
export function focusStop(page: Page): Promise<FocusStop | null> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    const s = getComputedStyle(el);
    const name = (el.getAttribute("aria-label") ?? el.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 40);
    const element = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.className && typeof el.className === "string" ? `.${el.className.trim().split(/\s+/).join(".")}` : ""} "${name}"`;
    // A focused frame draws its own focus inside (the drop's page, not ours).
    const ring = el.tagName === "IFRAME" || (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2);
    return { element, ring };
  });
}

/** Presses Tab (Shift+Tab when `back`) until `target` has focus; fails after `max` presses. */
export async function tabTo(page: Page, target: Locator, { max = 120, back = false } = {}): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement).catch(() => false)) return;
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
  }
  throw new Error(
    `Tab never reached ${target.toString()} in ${max} presses (last focus: ${JSON.stringify(await focusStop(page))})`,
  );
}

/** Whether `locator` holds the focused element (or is it). */
export function hasFocus(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => el === document.activeElement || el.contains(document.activeElement));
}
