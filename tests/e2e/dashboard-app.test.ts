import { performance } from "node:perf_hooks";
import { drizzle } from "drizzle-orm/node-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { DASHBOARD_NAV, OPERATORS_ENTRY } from "@/app/dashboard/nav";
import { startApp, type RunningApp } from "../support/app-server";
import { axeViolations, focusStop, tabTo } from "../support/a11y";
import { inspectPage, launchChromium, layoutProblems, scriptErrors, VIEWPORTS } from "../support/browser";
import { startPgServer, type PgServer } from "../support/pg-server";
import { registerSecret } from "../support/secrets";
import { seedDrops, seededSlug, seededViews, seedViews, SEEDED_DROPS } from "../support/seed-drops";

// The dashboard as an application, in Chromium against the built app (`npm run build` first) on
// PostgreSQL, for a Team account (an operator too) holding 20,000 drops with 7 days of views:
// every entry of its navigation reached and followed with the keyboard alone at 1280 and 390 px
// (the current one marked aria-current="page"); the drops list searched, filtered, sorted (views
// too) and paged through its URL, each page's time logged (the budget is in docs/web.md); the drop page's
// table of contents and the reasons its preview gives; axe (WCAG 2.2 AA, any impact) clean and no
// sideways scrolling on every page at 1280 and 390 px; screenshots into docs/screenshots/.

let pg: PgServer;
let app: RunningApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let errors: string[] = [];
const TEAM = "many-team";
/** The path of an invitation to TEAM (/dashboard/teams/join/<code>). */
let joinPath = "";

beforeAll(async () => {
  pg = await startPgServer();
  app = await startApp({ DATABASE_URL: pg.url });
  expect((await fetch(`${app.baseUrl}/login`)).status).toBe(200);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: VIEWPORTS.desktop });
  page = await context.newPage();
  errors = scriptErrors(page);
  await page.goto(`${app.baseUrl}/login`);
  await page.fill("#dev-email", "many@example.test");
  await page.getByRole("button", { name: "Sign in as this developer" }).click();
  await page.waitForURL(`${app.baseUrl}/dashboard`);
  const { Pool } = await import("pg");
  const pool = new Pool({ connectionString: pg.url });
  try {
    // An operator too (as `npm run admin -- grant-admin` makes one), so the navigation has Operators.
    const { rows } = await pool.query<{ id: string }>(
      "update accounts set plan = 'team', admin_granted_at = now() where email = 'many@example.test' returning id",
    );
    const now = new Date();
    await seedDrops(drizzle(pool), rows[0]!.id, now);
    await seedViews(drizzle(pool), now);
  } finally {
    await pool.end();
  }
  // A team of the account's (Team plan), made from its form, and an invitation to it for the join page.
  await page.goto(`${app.baseUrl}/dashboard/teams`);
  await page.fill("#team-name", "Many's team");
  await page.fill("#team-slug", TEAM);
  await Promise.all([
    page.waitForURL(`${app.baseUrl}/dashboard/teams/${TEAM}`),
    page.getByRole("button", { name: "Create team" }).click(),
  ]);
  await page.getByRole("button", { name: "Create invitation" }).click();
  joinPath = new URL((await page.getByTestId("new-invite-secret").textContent())!.trim()).pathname;
  registerSecret("team invite code", joinPath.split("/").at(-1));
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await pg?.stop();
});

/** Runs `act` (which navigates) and waits for the list to load; how long it took. */
async function timed(act: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), act()]);
  await page.getByTestId("drops-total").waitFor();
  return performance.now() - start;
}

const total = async () => (await page.getByTestId("drops-total").textContent())!.replace(/[^\d]/g, "");
const rows = () => page.locator("table.drops-table tbody tr");

describe("the dashboard of an account with 20,000 drops", () => {
  it.each(Object.entries(VIEWPORTS))(
    "reaches and follows every navigation entry with the keyboard alone at the %s width; the current one is marked",
    async (_, size) => {
      await page.setViewportSize(size);
      await page.goto(`${app.baseUrl}/dashboard`);
      const nav = page.getByRole("navigation", { name: "Dashboard" });
      const entries = [...DASHBOARD_NAV, OPERATORS_ENTRY];
      await expect(nav.getByRole("link").allTextContents()).resolves.toEqual(entries.map((e) => e.label));
      for (const entry of entries) {
        const link = nav.getByRole("link", { name: entry.label, exact: true });
        await tabTo(page, link);
        expect((await focusStop(page))?.ring, `focus ring on ${entry.label}`).toBe(true);
        await Promise.all([page.waitForURL(`${app.baseUrl}${entry.href}`), page.keyboard.press("Enter")]);
        await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe(entry.label);
        await expect(nav.locator('[aria-current="page"]').allTextContents()).resolves.toEqual([entry.label]);
        // Back to the top of the page: the next Tab starts from the document.
        await page.locator("body").focus();
      }
      await page.setViewportSize(VIEWPORTS.desktop);
    },
  );

  it("a drop's page is under Drops in the navigation", async () => {
    const nav = page.getByRole("navigation", { name: "Dashboard" });
    await page.goto(`${app.baseUrl}/dashboard/drops/${seededSlug(1)}`);
    await expect(nav.locator('[aria-current="page"]').allTextContents()).resolves.toEqual(["Drops"]);
  });

  it("searches, filters, sorts and pages through the URL; each page's time is logged", async () => {
    const took: Record<string, number> = {};
    took.list = await timed(() => page.goto(`${app.baseUrl}/dashboard`));
    expect(await total()).toBe(String(SEEDED_DROPS));
    await expect(rows().count()).resolves.toBe(20);

    // Search by name, with the keyboard: type, Enter.
    await tabTo(page, page.getByLabel("Search"));
    await page.keyboard.type("site-1234");
    took.search = await timed(() => page.keyboard.press("Enter"));
    expect(new URL(page.url()).searchParams.get("q")).toBe("site-1234");
    expect(await total()).toBe("6");
    await expect(page.getByLabel("Search").inputValue()).resolves.toBe("site-1234");

    // A drop's URL finds the drop.
    await page.getByLabel("Search").fill(`http://${seededSlug(77)}.${app.serveDomain}/`);
    took.url = await timed(() => page.getByRole("button", { name: "Apply" }).click());
    expect(await total()).toBe("1");
    await expect(page.getByTestId(`drop-${seededSlug(77)}`).count()).resolves.toBe(1);

    // Most viewed first: drop 96 has 96 views on each of the 7 days, then the next most viewed.
    await page.getByLabel("Search").fill("");
    await page.getByLabel("Sort by").selectOption("views");
    took.views = await timed(() => page.getByRole("button", { name: "Apply" }).click());
    expect(new URL(page.url()).searchParams.get("sort")).toBe("views");
    expect(await total()).toBe(String(SEEDED_DROPS));
    const top = Array.from({ length: SEEDED_DROPS }, (_, k) => k + 1)
      .sort((a, b) => seededViews(b) - seededViews(a) || a - b)
      .slice(0, 20);
    await expect(rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-testid")))).resolves.toEqual(
      top.map((i) => `drop-${seededSlug(i)}`),
    );
    await expect(rows().first().locator('td[data-label="Views (7 days)"]').textContent()).resolves.toBe(
      String(seededViews(96)),
    );

    // Filter by state and sort by name: expired drops are every 10th, named on even numbers.
    await page.getByLabel("State").selectOption("expired");
    await page.getByLabel("Sort by").selectOption("name");
    took.filter = await timed(() => page.getByRole("button", { name: "Apply" }).click());
    expect(await total()).toBe(String(SEEDED_DROPS / 10));
    await expect(rows().first().getByTestId("state-expired").count()).resolves.toBe(1);
    await expect(page.getByLabel("State").inputValue()).resolves.toBe("expired");

    // Password-protected, 100 a page, and the next page keeps every choice.
    await page.getByLabel("State").selectOption("protected");
    await page.getByLabel("Per page").selectOption("100");
    took.protected = await timed(() => page.getByRole("button", { name: "Apply" }).click());
    expect(await total()).toBe(String(Math.floor(SEEDED_DROPS / 7)));
    await expect(rows().count()).resolves.toBe(100);
    await expect(page.getByTestId("state-protected").count()).resolves.toBe(100);
    took.next = await timed(() => page.getByRole("link", { name: "Next →" }).click());
    // The link is the router's (a soft navigation): on a loaded machine the URL can change after
    // the navigation event the timing waited for.
    await page.waitForURL((u) => u.searchParams.get("page") === "2");
    const params = new URL(page.url()).searchParams;
    expect(Object.fromEntries(params)).toEqual({ state: "protected", sort: "name", size: "100", page: "2" });
    await expect(page.getByTestId("drops-page").textContent()).resolves.toBe(
      `Page 2 of ${Math.ceil(Math.floor(SEEDED_DROPS / 7) / 100)}`,
    );

    // The last page of everything, by URL.
    took.last = await timed(() => page.goto(`${app.baseUrl}/dashboard?page=${SEEDED_DROPS / 20}`));
    await expect(rows().count()).resolves.toBe(20);
    await expect(page.getByTestId(`drop-${seededSlug(SEEDED_DROPS)}`).count()).resolves.toBe(1);

    // A hand-edited URL with nonsense is the plain list, not an error.
    took.nonsense = await timed(() => page.goto(`${app.baseUrl}/dashboard?state=bogus&sort=%00&size=-1&page=1e9`));
    expect(await total()).toBe(String(SEEDED_DROPS));

    console.log(
      `[dashboard-app] page times (ms): ${Object.entries(took)
        .map(([k, v]) => `${k} ${v.toFixed(0)}`)
        .join(", ")}`,
    );
  });

  it("the drop page has a table of contents on wide screens and says why a preview cannot show", async () => {
    await page.goto(`${app.baseUrl}/dashboard/drops/${seededSlug(7)}`);
    const toc = page.getByRole("navigation", { name: "On this page" });
    await expect(toc.isVisible()).resolves.toBe(true);
    const targets = await toc.getByRole("link").evaluateAll((links) => links.map((a) => a.getAttribute("href")!));
    // Overview, files and preview, versions, aliases, access, custom domains (no site rules on this drop), visits, render check.
    expect(targets).toEqual([
      "#overview-title",
      "#files-title",
      "#versions-title",
      "#aliases-title",
      "#access-title",
      "#domains-title",
      "#stats-title",
      "#render-check-title",
    ]);
    for (const hash of targets) await expect(page.locator(hash).count(), hash).resolves.toBe(1);
    await expect(page.getByTestId("preview-blocked").textContent()).resolves.toContain("password-protected");
    await expect(page.getByTestId("drop-preview").count()).resolves.toBe(0);
    await page.setViewportSize(VIEWPORTS.phone);
    await expect(toc.isVisible()).resolves.toBe(false);
    await page.setViewportSize(VIEWPORTS.desktop);
    await page.goto(`${app.baseUrl}/dashboard/drops/${seededSlug(10)}`);
    await expect(page.getByTestId("preview-blocked").textContent()).resolves.toContain("expired");
    // Seeded drops have no files: no index.html, so the address answers 404.
    await page.goto(`${app.baseUrl}/dashboard/drops/${seededSlug(1)}`);
    await expect(page.getByTestId("preview-blocked").textContent()).resolves.toContain("no index.html");
  });

  const pages: [string, string][] = [
    ["dashboard-drops", "/dashboard"],
    ["dashboard-drops-searched", "/dashboard?q=site-12&state=live&sort=name&size=50&page=2"],
    ["dashboard-drops-by-views", "/dashboard?sort=views"],
    ["dashboard-domains", "/dashboard/domains"],
    ["dashboard-webhooks", "/dashboard/webhooks"],
    ["dashboard-keys", "/dashboard/keys"],
    ["dashboard-billing", "/dashboard/billing"],
    ["dashboard-drop-toc", `/dashboard/drops/${seededSlug(2)}`],
    ["dashboard-operators", "/admin"],
    ["dashboard-teams-list", "/dashboard/teams"],
    ["dashboard-team-owner", `/dashboard/teams/${TEAM}`],
    ["dashboard-team-join", "join"],
  ];
  it.each(pages)("%s: axe clean and no sideways scrolling at 1280 and 390 px; screenshots", async (name, path) => {
    // The invitation is made in beforeAll, after this list is read.
    await page.goto(`${app.baseUrl}${path === "join" ? joinPath : path}`);
    for (const size of Object.values(VIEWPORTS)) {
      await page.setViewportSize(size);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      expect(await axeViolations(page, `${name} at ${size.width}px`)).toEqual([]);
      expect(await layoutProblems(page)).toEqual([]);
    }
    const { problems } = await inspectPage(page, name);
    expect(problems).toEqual([]);
    await page.setViewportSize(VIEWPORTS.desktop);
  });

  it("no page had a script error", () => {
    expect(errors).toEqual([]);
  });
});
