import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { Pool } from "pg";
import { startApp, type RunningApp } from "../support/app-server";
import {
  devLogin,
  launchChromium,
  mintOnDashboard,
  personWithTeam,
  scriptErrors,
  switchActingAs,
  VIEWPORTS,
} from "../support/browser";
import { startPgServer, type PgServer } from "../support/pg-server";
import { registerSecret } from "../support/secrets";

// The team role matrix through the dashboard's own actions, in Chromium against the built app
// (`npm run build` first) on PostgreSQL: each role of a team (viewer, member, admin, owner),
// acting as the team through the "Acting as" switcher, tries every class of action the
// dashboard offers with the page's own controls. Below the class's weakest role the page shows
// the refusal (an alert naming the role) and nothing changes in the database; at or above it,
// the action is done. The weakest role per class is DESIGN's table, written out here.

const ROLES = ["viewer", "member", "admin", "owner"] as const;
type Role = (typeof ROLES)[number];
const WEAKEST = {
  read: "viewer",
  deploy: "member",
  domains: "admin",
  webhooks: "admin",
  vanity: "admin",
  billing: "owner",
  delete: "admin",
} as const satisfies Record<string, Role>;
const allowed = (role: Role, cls: keyof typeof WEAKEST) => ROLES.indexOf(role) >= ROLES.indexOf(WEAKEST[cls]);

let app: RunningApp;
let pg: PgServer;
let pool: Pool;
let browser: Browser;
let ownerKey = "";
let teamKey = "";
let teamAccount = "";
const SLUG = "matrix-team";
const TEAM = "Matrix Team";
const OWNER = "matrix-owner@example.test";
const emailOf = (role: Role) => (role === "owner" ? OWNER : `matrix-${role}@example.test`);

const call = (key: string, path: string, body?: unknown) =>
  fetch(`${app.baseUrl}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const login = (ctx: BrowserContext, email: string) => devLogin(ctx, app.baseUrl, email);
const switchTo = (p: Page, role: Role) => switchActingAs(p, `${TEAM} (${role})`);

const one = async (sql: string, params: unknown[]) =>
  (await pool.query(sql, params)).rows[0] as Record<string, unknown>;
const count = async (sql: string, params: unknown[]) => Number((await one(sql, params)).n);

/** The refusal the dashboard shows for a class, naming the role. */
async function refusal(p: Page, role: Role, words: string): Promise<void> {
  const alert = p.getByRole("alert").filter({ hasText: `Your role in this team (${role}) may not ${words}` });
  await alert.waitFor();
  await expect(alert.textContent()).resolves.toContain("forbidden");
}

const drops: Record<Role, string> = { viewer: "", member: "", admin: "", owner: "" };

beforeAll(async () => {
  pg = await startPgServer();
  app = await startApp({ DATABASE_URL: pg.url, WEBHOOKS_ALLOW_PRIVATE: "1" });
  browser = await launchChromium();
  const { Pool } = await import("pg");
  pool = new Pool({ connectionString: pg.url });

  // The owner and the team; then, acting as the team, a team key (minted on the dashboard:
  // keys come from a login, not from another key).
  ownerKey = await personWithTeam(browser, app.baseUrl, {
    email: OWNER,
    name: TEAM,
    slug: SLUG,
    db: pool,
  });
  teamAccount = String((await one("select account_id from teams where slug = $1", [SLUG])).account_id);
  const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
  const p = await login(ctx, OWNER);
  await switchTo(p, "owner");
  teamKey = await mintOnDashboard(p, app.baseUrl, "matrix team");
  await ctx.close();

  // One person per other role, each joined through the invitation page.
  for (const role of ROLES.filter((r) => r !== "owner")) {
    const inv = await call(ownerKey, `/teams/${SLUG}/invites`, { role });
    expect(inv.status).toBe(201);
    const { url, code } = (await inv.json()) as { url: string; code: string };
    registerSecret("team invite code", code);
    const c = await browser.newContext({ viewport: VIEWPORTS.desktop });
    const page = await login(c, emailOf(role));
    await page.goto(url.replace(/^https?:\/\/[^/]+/, app.baseUrl));
    await page.getByRole("button", { name: `Join ${TEAM} as ${role}` }).click();
    await page.getByTestId("join-said").waitFor();
    await c.close();
  }

  // A team drop for each role to act on, deployed with the owner's team key.
  for (const role of ROLES) {
    const d = await call(teamKey, "/deploy", { files: { "index.html": `<h1>${role}</h1>` } });
    expect(d.status).toBe(200);
    drops[role] = ((await d.json()) as { slug: string }).slug;
  }
}, 240_000);

afterAll(async () => {
  await pool?.end();
  await browser?.close();
  await app?.stop();
  await pg?.stop();
});

describe("the role matrix through the dashboard: every class x every role", () => {
  it.each(ROLES)("as %s: refused below each class's weakest role (nothing changes), done at or above", async (role) => {
    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    try {
      const p = await login(ctx, emailOf(role));
      const errors = scriptErrors(p);
      await switchTo(p, role);
      const slug = drops[role];

      // read: the team's drops are listed.
      await p.goto(`${app.baseUrl}/dashboard`);
      await p.getByTestId(`drop-${slug}`).waitFor();

      // deploy: the drop page's access form (PUT /drops/{slug}/access).
      await p.goto(`${app.baseUrl}/dashboard/drops/${slug}`);
      await p.getByLabel("Only visitors who know the password").check();
      await p.fill("#access-password", "correct horse battery");
      await p.getByRole("button", { name: "Save access" }).click();
      if (allowed(role, "deploy")) {
        await p.getByTestId("access-status").filter({ hasText: "Saved: the drop is password-protected." }).waitFor();
      } else await refusal(p, role, "deploy or change the team's drops");
      expect((await one("select access_mode from drops where slug = $1", [slug])).access_mode).toBe(
        allowed(role, "deploy") ? "password" : "public",
      );

      // domains: the drop page's custom domains form (POST /domains).
      const hostname = `${role}.matrix-test.example.net`;
      await p.fill("#domain-hostname", hostname);
      await p.getByRole("button", { name: "Add domain" }).click();
      if (allowed(role, "domains")) {
        await p
          .getByTestId("domains-status")
          .filter({ hasText: `Added ${hostname}` })
          .waitFor();
      } else await refusal(p, role, "change the team's domains");
      expect(
        await count("select count(*) as n from domains where hostname = $1 and account_id = $2", [
          hostname,
          teamAccount,
        ]),
      ).toBe(allowed(role, "domains") ? 1 : 0);

      // webhooks: the webhooks page (POST /webhooks).
      const hook = `http://127.0.0.1:9/${role}`;
      await p.goto(`${app.baseUrl}/dashboard/webhooks`);
      await p.fill("#webhook-url", hook);
      await p.getByRole("button", { name: "Add webhook" }).click();
      if (allowed(role, "webhooks")) await p.getByTestId("new-webhook-secret").waitFor();
      else await refusal(p, role, "change the team's webhooks");
      expect(
        await count("select count(*) as n from webhooks where url = $1 and account_id = $2", [hook, teamAccount]),
      ).toBe(allowed(role, "webhooks") ? 1 : 0);

      // vanity: the domains page's subdomain claim (POST /vanity); free again for each role.
      await pool.query("update accounts set vanity_sub = null where id = $1", [teamAccount]);
      const sub = `mx${role}`;
      await p.goto(`${app.baseUrl}/dashboard/domains`);
      await p.fill("#vanity-sub", sub);
      await p.getByRole("button", { name: "Claim" }).click();
      if (allowed(role, "vanity")) await p.getByText(`Your subdomain: ${sub}`).waitFor();
      else await refusal(p, role, "change the team's vanity name");
      expect((await one("select vanity_sub from accounts where id = $1", [teamAccount])).vanity_sub).toBe(
        allowed(role, "vanity") ? sub : null,
      );

      // billing: the team's plan is shown to its owners only.
      await p.goto(`${app.baseUrl}/dashboard/billing`);
      if (allowed(role, "billing")) await p.getByTestId("team-plan").waitFor();
      else
        await expect(p.getByTestId("billing-refused").textContent()).resolves.toContain(
          `Your role in this team (${role}) may not see the team's billing`,
        );

      // delete: the drop page's Delete (DELETE /drops/{slug}).
      await p.goto(`${app.baseUrl}/dashboard/drops/${slug}`);
      await p.getByRole("button", { name: "Delete" }).click();
      await p.getByRole("button", { name: "Confirm delete" }).click();
      if (allowed(role, "delete")) await p.waitForURL(`${app.baseUrl}/dashboard`);
      else await refusal(p, role, "delete the team's drops");
      expect(await count("select count(*) as n from drops where slug = $1", [slug])).toBe(
        allowed(role, "delete") ? 0 : 1,
      );

      expect(errors).toEqual([]);
    } finally {
      await ctx.close();
    }
  });
});
