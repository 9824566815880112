import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import type { Pool } from "pg";
import { axeViolations, hasFocus, tabTo } from "../support/a11y";
import { startApp, type RunningApp } from "../support/app-server";
import {
  devLogin,
  launchChromium,
  layoutProblems,
  mintOnDashboard,
  personWithTeam,
  scriptErrors,
  switchActingAs,
  VIEWPORTS,
} from "../support/browser";
import { startPgServer, type PgServer } from "../support/pg-server";
import { registerSecret } from "../support/secrets";

// The drop page's previews in Chromium against the built app (`npm run build` first), on
// PostgreSQL (the test makes the account Pro, for a named drop): a drop with a live version and a
// staged one (promote=false). Each version row's Open link is its version_url and that host
// serves that version; "Make live" moves the live host to the staged version; an alias is
// created, moved and deleted with the keyboard alone, each step served at `<slug>---<name>`;
// axe (WCAG 2.2 AA, the tags of tests/support/a11y.ts) finds nothing at 1280 and 390 px. A
// disabled drop, and a team's viewer, see versions and aliases without the write controls and
// read why; a team's member gets them.

let app: RunningApp;
let pg: PgServer;
let pool: Pool;
let browser: Browser;
let key = "";
const EMAIL = "previews@example.test";

const page = (h1: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${h1}</title></head><body><main><h1>${h1}</h1></main></body></html>`;

interface Deployed {
  slug: string;
  url: string;
  version: number;
  version_url: string;
  live_version: number;
  promoted: boolean;
}

async function deploy(html: string, query: string, as = key): Promise<Deployed> {
  const res = await fetch(`${app.baseUrl}/deploy?${query}`, {
    method: "POST",
    body: html,
    headers: { authorization: `Bearer ${as}`, "content-type": "text/html" },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Deployed;
}

/** The first <h1> a host serves at /, through the app's own port. */
async function served(host: string): Promise<{ status: number; h1: string | undefined }> {
  const r = await app.request(`${host}:${app.port}`, "/");
  return { status: r.status, h1: /<h1>([^<]*)<\/h1>/.exec(r.text)?.[1] };
}

beforeAll(async () => {
  pg = await startPgServer();
  app = await startApp({ DATABASE_URL: pg.url });
  browser = await launchChromium();
  const { Pool } = await import("pg");
  pool = new Pool({ connectionString: pg.url });
  const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
  key = await mintOnDashboard(await devLogin(ctx, app.baseUrl, EMAIL), app.baseUrl, "previews test");
  await ctx.close();
  await pool.query("update accounts set plan = 'pro' where email = $1", [EMAIL]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await pool?.end();
  await app?.stop();
  await pg?.stop();
});

/** axe and the layout checks of the page at 1280 and 390 px; back to 1280 after. */
async function checkBothWidths(p: Page, name: string): Promise<void> {
  for (const size of [VIEWPORTS.desktop, VIEWPORTS.phone]) {
    await p.setViewportSize(size);
    expect(await axeViolations(p, `${name} at ${size.width}px`)).toEqual([]);
    expect(await layoutProblems(p)).toEqual([]);
  }
  await p.setViewportSize(VIEWPORTS.desktop);
}

describe("the drop page's previews: version addresses, Make live, aliases", () => {
  it("opens each version at its own address, makes the staged one live, and keeps an alias by keyboard", async () => {
    const first = await deploy(page("version one"), "name=preview-site");
    const second = await deploy(page("version two"), "name=preview-site&promote=false");
    expect(first).toMatchObject({ version: 1, live_version: 1, promoted: true });
    expect(second).toMatchObject({ slug: first.slug, version: 2, live_version: 1, promoted: false });
    const slug = first.slug;
    expect(second.version_url).toBe(`http://${slug}---v2.localhost:${app.port}/`);
    await expect(served(`${slug}.localhost`)).resolves.toEqual({ status: 200, h1: "version one" });

    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.baseUrl });
    try {
      const p = await devLogin(ctx, app.baseUrl, EMAIL);
      const errors = scriptErrors(p);
      await p.goto(`${app.baseUrl}/dashboard/drops/${slug}`);
      const table = p.getByTestId("drop-versions");

      // Each row's Open link is its version_url, in a new tab, and that page is that version.
      for (const v of [first, second]) {
        const open = table.getByRole("link", { name: `Open version ${v.version} in a new tab` });
        await expect(open.getAttribute("href")).resolves.toBe(v.version_url);
        await expect(open.getAttribute("target")).resolves.toBe("_blank");
        const [tab] = await Promise.all([ctx.waitForEvent("page"), open.click()]);
        await tab.waitForLoadState("domcontentloaded");
        expect(tab.url()).toBe(v.version_url);
        await expect(tab.locator("h1").textContent()).resolves.toBe(`version ${v.version === 1 ? "one" : "two"}`);
        await tab.close();
      }
      // Copy puts the version's address on the clipboard and says so in a live region.
      await table.getByRole("button", { name: "Copy the address of version 2" }).click();
      await expect(p.evaluate(() => navigator.clipboard.readText())).resolves.toBe(second.version_url);
      await p.getByRole("status").filter({ hasText: "Copied to the clipboard." }).waitFor();

      // The live row says so and has no "Make live"; the staged one has it.
      await expect(table.getByTestId("version-1").textContent()).resolves.toMatch(/^1 \(live\).*Live$/);
      await expect(
        table
          .getByTestId("version-1")
          .getByRole("button", { name: /Make live/ })
          .count(),
      ).resolves.toBe(0);
      await table.getByRole("button", { name: "Make live: version 2" }).click();
      const dialog = p.getByTestId("rollback-dialog");
      await dialog.getByRole("button", { name: "Make live" }).click();
      await p.getByTestId("versions-status").filter({ hasText: "Version 2 is live." }).waitFor();
      await table
        .getByTestId("version-2")
        .filter({ hasText: /^2 \(live\)/ })
        .waitFor();
      await expect(served(`${slug}.localhost`)).resolves.toEqual({ status: 200, h1: "version two" });
      await expect(table.getByRole("button", { name: "Make live: version 1" }).count()).resolves.toBe(1);

      // An alias by keyboard alone: Tab to the name, type it, Tab, pick version 1, Tab, Enter.
      const nameInput = p.getByLabel("Alias name");
      const versionSelect = p.getByLabel("Version", { exact: true });
      await p.getByTestId("drop-url").focus();
      await tabTo(p, nameInput);
      await p.keyboard.type("staging");
      await p.keyboard.press("Tab");
      expect(await hasFocus(versionSelect)).toBe(true);
      await expect(versionSelect.inputValue()).resolves.toBe("2");
      await p.keyboard.press("ArrowDown");
      await expect(versionSelect.inputValue()).resolves.toBe("1");
      await p.keyboard.press("Tab");
      expect(await hasFocus(p.getByRole("button", { name: "Point alias" }))).toBe(true);
      await p.keyboard.press("Enter");
      const status = p.getByTestId("aliases-status");
      await status.filter({ hasText: "staging now points at version 1." }).waitFor();
      const row = p.getByTestId("alias-staging");
      await expect(row.locator("td").nth(1).textContent()).resolves.toBe("1");
      const aliasUrl = `http://${slug}---staging.localhost:${app.port}/`;
      await expect(
        row.getByRole("link", { name: "Open alias staging in a new tab" }).getAttribute("href"),
      ).resolves.toBe(aliasUrl);
      await expect(served(`${slug}---staging.localhost`)).resolves.toEqual({ status: 200, h1: "version one" });
      await checkBothWidths(p, "drop page with an alias");

      // Moving it: the same name, version 2, again from the keyboard.
      await p.getByTestId("drop-url").focus();
      await tabTo(p, nameInput);
      await p.keyboard.press("Control+A");
      await p.keyboard.type("staging");
      await p.keyboard.press("Tab");
      await p.keyboard.press("ArrowUp");
      await expect(versionSelect.inputValue()).resolves.toBe("2");
      await p.keyboard.press("Tab");
      await p.keyboard.press("Enter");
      await status.filter({ hasText: "staging now points at version 2." }).waitFor();
      await row.locator("td").nth(1).filter({ hasText: /^2$/ }).waitFor();
      await expect(p.getByTestId("drop-aliases").locator("tbody tr").count()).resolves.toBe(1);
      await expect(served(`${slug}---staging.localhost`)).resolves.toEqual({ status: 200, h1: "version two" });

      // Deleting it: Tab to its Delete, Enter; the dialog takes focus; Tab to confirm, Enter.
      const del = row.getByRole("button", { name: "Delete alias staging" });
      await p.getByTestId("drop-url").focus();
      await tabTo(p, del);
      await p.keyboard.press("Enter");
      const confirm = p.getByTestId("alias-delete-dialog");
      await confirm.waitFor();
      expect(await hasFocus(confirm)).toBe(true);
      await checkBothWidths(p, "drop page, alias delete dialog");
      await tabTo(p, confirm.getByRole("button", { name: "Delete alias" }));
      await p.keyboard.press("Enter");
      await status.filter({ hasText: "Alias staging deleted." }).waitFor();
      await p.getByTestId("aliases-empty").waitFor();
      const gone = await served(`${slug}---staging.localhost`);
      expect(gone.status).toBe(404);
      expect(gone.h1).not.toBe("version two");
      const left = await pool.query(
        "select count(*)::int as n from drop_aliases a join drops d on d.id = a.drop_id where d.slug = $1",
        [slug],
      );
      expect(left.rows[0]).toEqual({ n: 0 });
      await checkBothWidths(p, "drop page after the alias is deleted");
      expect(errors).toEqual([]);
    } finally {
      await ctx.close();
    }
  }, 180_000);

  it("a disabled drop shows its versions and aliases without Make live or the alias form, and says why", async () => {
    const d = await deploy(page("kept"), "name=disabled-site");
    await deploy(page("staged"), "name=disabled-site&promote=false&alias=keep");
    await pool.query("update drops set disabled_at = now(), disabled_reason = 'spam' where slug = $1", [d.slug]);
    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    try {
      const p = await devLogin(ctx, app.baseUrl, EMAIL);
      await p.goto(`${app.baseUrl}/dashboard/drops/${d.slug}`);
      await expect(p.getByTestId("versions-blocked").textContent()).resolves.toContain(
        "An operator has disabled this drop (spam)",
      );
      await expect(p.getByTestId("aliases-blocked").textContent()).resolves.toContain("cannot change");
      await expect(p.getByRole("button", { name: /Make live/ }).count()).resolves.toBe(0);
      await expect(p.getByRole("button", { name: /Delete alias/ }).count()).resolves.toBe(0);
      await expect(p.getByTestId("alias-form").count()).resolves.toBe(0);
      // What it has is still listed, with its addresses.
      await expect(p.getByTestId("alias-keep").locator("td").nth(1).textContent()).resolves.toBe("2");
      await expect(p.getByRole("link", { name: "Open version 2 in a new tab" }).getAttribute("href")).resolves.toBe(
        d.version_url.replace("---v1.", "---v2."),
      );
      await checkBothWidths(p, "drop page of a disabled drop");
    } finally {
      await ctx.close();
    }
  }, 180_000);

  it("a team's viewer sees versions and aliases without the buttons; a member gets them", async () => {
    const owner = "previews-owner@example.test";
    const ownerKey = await personWithTeam(browser, app.baseUrl, {
      email: owner,
      name: "Preview Team",
      slug: "preview-team",
      db: pool,
    });
    const octx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const op = await devLogin(octx, app.baseUrl, owner);
    await switchActingAs(op, "Preview Team (owner)");
    const teamKey = await mintOnDashboard(op, app.baseUrl, "preview team");
    await octx.close();
    const d = await deploy(page("team one"), "name=team-site", teamKey);
    await deploy(page("team two"), "name=team-site&promote=false&alias=review", teamKey);

    for (const role of ["viewer", "member"] as const) {
      const inv = await fetch(`${app.baseUrl}/teams/preview-team/invites`, {
        method: "POST",
        headers: { authorization: `Bearer ${ownerKey}`, "content-type": "application/json" },
        body: JSON.stringify({ role }),
      });
      expect(inv.status).toBe(201);
      const { url, code } = (await inv.json()) as { url: string; code: string };
      registerSecret("team invite code", code);
      const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
      try {
        const p = await devLogin(ctx, app.baseUrl, `previews-${role}@example.test`);
        await p.goto(url.replace(/^https?:\/\/[^/]+/, app.baseUrl));
        await p.getByRole("button", { name: `Join Preview Team as ${role}` }).click();
        await p.getByTestId("join-said").waitFor();
        await p.goto(`${app.baseUrl}/dashboard`);
        await switchActingAs(p, `Preview Team (${role})`);
        await p.goto(`${app.baseUrl}/dashboard/drops/${d.slug}`);
        await p.getByTestId("alias-review").waitFor();
        const makeLive = p.getByRole("button", { name: "Make live: version 2" });
        if (role === "viewer") {
          await expect(p.getByTestId("aliases-blocked").textContent()).resolves.toContain(
            "Your role in this team (viewer)",
          );
          await expect(makeLive.count()).resolves.toBe(0);
          await expect(p.getByTestId("alias-form").count()).resolves.toBe(0);
          await expect(p.getByRole("button", { name: "Delete alias review" }).count()).resolves.toBe(0);
          await checkBothWidths(p, "drop page as a team viewer");
        } else {
          await expect(p.getByTestId("aliases-blocked").count()).resolves.toBe(0);
          await expect(makeLive.count()).resolves.toBe(1);
          await expect(p.getByTestId("alias-form").count()).resolves.toBe(1);
        }
      } finally {
        await ctx.close();
      }
    }
  }, 180_000);

  it("shows the plan's cap per drop and, past it, the refusal as an alert with nothing added", async () => {
    const d = await deploy(page("capped"), "name=capped-site");
    for (const name of ["a1", "a2", "a3"]) {
      const res = await fetch(`${app.baseUrl}/drops/${d.slug}/aliases/${name}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ version: 1 }),
      });
      expect(res.status).toBe(200);
    }
    // On the free plan (3 aliases per drop, lib/plans.ts) the drop is at its cap.
    await pool.query("update accounts set plan = 'free' where email = $1", [EMAIL]);
    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    try {
      const p = await devLogin(ctx, app.baseUrl, EMAIL);
      await p.goto(`${app.baseUrl}/dashboard/drops/${d.slug}`);
      await expect(p.getByTestId("aliases-cap").textContent()).resolves.toContain("3 of the 3 aliases");
      await p.getByLabel("Alias name").fill("a4");
      await p.getByRole("button", { name: "Point alias" }).click();
      const alert = p.getByTestId("alias-form").locator("..").getByRole("alert");
      await alert.waitFor();
      await expect(alert.textContent()).resolves.toMatch(/the most its plan allows \(3\).*invalid_request/);
      await expect(p.getByTestId("drop-aliases").locator("tbody tr").count()).resolves.toBe(3);
      await checkBothWidths(p, "drop page, alias refused past the cap");
    } finally {
      await ctx.close();
      await pool.query("update accounts set plan = 'pro' where email = $1", [EMAIL]);
    }
  }, 180_000);
});
