import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { Pool } from "pg";
import { axeViolations } from "../support/a11y";
import { startApp, type RunningApp } from "../support/app-server";
import {
  devLogin,
  dropFiles,
  launchChromium,
  layoutProblems,
  personWithTeam,
  scriptErrors,
  switchActingAs,
  VIEWPORTS,
} from "../support/browser";
import { startPgServer, type PgServer } from "../support/pg-server";
import { registerSecret } from "../support/secrets";
import { authorizationUrl, pkcePair, registerClient } from "../support/oauth";

// The dashboard's "Acting as" switcher in a real browser against the built app (`npm run build`
// first), on PostgreSQL: switching by keyboard alone to a team, deploying as the team and seeing
// the team's drops only (and the person's only when switched back); a viewer's refused delete
// answers 403 text on the page and changes nothing; axe (WCAG 2.2 AA) and the layout checks on
// the header and switcher at 1280 and 390 px.

let app: RunningApp;
let pg: PgServer;
let pool: Pool;
let browser: Browser;
let ownerKey = "";
const SLUG = "acting-team";
const TEAM = "Acting Team";
const OWNER = "acting-owner@example.test";

const api = (path: string, body?: unknown) =>
  fetch(`${app.baseUrl}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${ownerKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const login = (ctx: BrowserContext, email: string) => devLogin(ctx, app.baseUrl, email);

/** Switches with the select and its button, then waits for the page the switch leads to. */
async function switchTo(p: Page, label: string): Promise<void> {
  await switchActingAs(p, label);
  await p.waitForURL(`${app.baseUrl}/dashboard`);
}

const dropsTotal = async (p: Page) => (await p.getByTestId("drops-total").textContent())?.trim();

async function teamDropSlugs(): Promise<string[]> {
  const r = await pool.query<{ slug: string }>(
    "select d.slug from drops d join teams t on t.account_id = d.owner_id where t.slug = $1 order by d.slug",
    [SLUG],
  );
  return r.rows.map((x) => x.slug);
}

let personalSlug = "";

beforeAll(async () => {
  pg = await startPgServer();
  app = await startApp({ DATABASE_URL: pg.url });
  browser = await launchChromium();
  const { Pool } = await import("pg");
  pool = new Pool({ connectionString: pg.url });
  ownerKey = await personWithTeam(browser, app.baseUrl, {
    email: OWNER,
    name: TEAM,
    slug: SLUG,
    db: pool,
  });
  const deployed = await api("/deploy", { files: { "index.html": "<h1>personal</h1>" } });
  expect(deployed.status).toBe(200);
  personalSlug = ((await deployed.json()) as { slug: string }).slug;
}, 180_000);

afterAll(async () => {
  await pool?.end();
  await browser?.close();
  await app?.stop();
  await pg?.stop();
});

describe("the Acting as switcher", () => {
  it("switched by keyboard alone; deploys as the team, which sees its drops only; back to the person", async () => {
    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    try {
      const p = await login(ctx, OWNER);
      const errors = scriptErrors(p);
      await expect(p.getByLabel("Acting as").inputValue()).resolves.toBe("");
      await expect(dropsTotal(p)).resolves.toBe("(1)");

      // Keyboard only: focus the select, pick the team with the arrow key, Tab to Switch, Enter.
      await p.getByLabel("Acting as").focus();
      await p.keyboard.press("ArrowDown");
      await expect(p.getByLabel("Acting as").inputValue()).resolves.toBe(SLUG);
      await p.keyboard.press("Tab");
      await expect(p.evaluate(() => document.activeElement?.textContent)).resolves.toBe("Switch");
      await Promise.all([p.waitForURL(`${app.baseUrl}/dashboard`), p.keyboard.press("Enter")]);
      await p
        .getByTestId("acting-team")
        .filter({ hasText: `as ${TEAM} (owner)` })
        .waitFor();
      await expect(p.getByLabel("Acting as").inputValue()).resolves.toBe(SLUG);
      await expect(dropsTotal(p)).resolves.toBe("(0)");
      await expect(p.getByTestId(`drop-${personalSlug}`).count()).resolves.toBe(0);

      // The cookie: HttpOnly, SameSite=Lax, the team's slug.
      const cookie = (await ctx.cookies()).find((c) => c.name === "dropsite-acting-as");
      expect(cookie).toMatchObject({ value: SLUG, httpOnly: true, sameSite: "Lax" });

      // A named drop deployed from the dashboard belongs to the team.
      await p.fill("#drop-name", "team-site");
      await p
        .getByTestId("file-input")
        .setInputFiles({ name: "index.html", mimeType: "text/html", buffer: Buffer.from("<h1>team</h1>") });
      await p.getByTestId("deployed-url").waitFor({ timeout: 30_000 });
      const teamSlugs = await teamDropSlugs();
      expect(teamSlugs).toHaveLength(1);
      await p.goto(`${app.baseUrl}/dashboard`);
      await expect(dropsTotal(p)).resolves.toBe("(1)");
      await expect(p.getByTestId(`drop-${teamSlugs[0]}`).count()).resolves.toBe(1);

      // A key minted as the team is a team key, in the team's audit with the person and the session.
      await p.goto(`${app.baseUrl}/dashboard/keys`);
      await p.fill("#key-note", "team key");
      await p.getByRole("button", { name: "Mint API key" }).click();
      await p.getByTestId("new-key-secret").waitFor();
      registerSecret("api key", (await p.getByTestId("new-key-secret").textContent())!.trim());
      const keyRows = await pool.query<{ team_slug: string | null }>(
        "select t.slug as team_slug from api_keys k left join teams t on t.id = k.team_id where k.note = 'team key'",
      );
      expect(keyRows.rows.map((r) => r.team_slug)).toEqual([SLUG]);
      const audit = (await (await api(`/teams/${SLUG}/audit`)).json()) as {
        entries: { action: string; actor: { email: string }; credential: { kind: string } }[];
      };
      expect(audit.entries.find((e) => e.action === "key.created")).toMatchObject({
        actor: { email: OWNER },
        credential: { kind: "session" },
      });
      await p.goto(`${app.baseUrl}/dashboard`);

      // Back to the person: their own drop only.
      await switchTo(p, `${OWNER} (you)`);
      await expect(p.getByTestId("acting-team").count()).resolves.toBe(0);
      await expect(dropsTotal(p)).resolves.toBe("(1)");
      await expect(p.getByTestId(`drop-${personalSlug}`).count()).resolves.toBe(1);
      await expect(p.getByTestId(`drop-${teamSlugs[0]}`).count()).resolves.toBe(0);
      expect((await ctx.cookies()).some((c) => c.name === "dropsite-acting-as")).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await ctx.close();
    }
  });

  it.each(Object.entries(VIEWPORTS))(
    "at %s: the header and switcher pass axe and the layout checks",
    async (name, viewport) => {
      const ctx = await browser.newContext({ viewport });
      try {
        const p = await login(ctx, OWNER);
        await switchTo(p, `${TEAM} (owner)`);
        expect(await axeViolations(p, `acting as a team (${name})`)).toEqual([]);
        expect(await layoutProblems(p)).toEqual([]);
        const box = await p.getByLabel("Acting as").boundingBox();
        expect(box && box.width >= 24 && box.height >= 24).toBe(true);
      } finally {
        await ctx.close();
      }
    },
  );

  it("a viewer's delete is refused with the 403 text, and the drop stays", async () => {
    const inv = await api(`/teams/${SLUG}/invites`, { role: "viewer" });
    expect(inv.status).toBe(201);
    const { url, code } = (await inv.json()) as { url: string; code: string };
    registerSecret("team invite code", code);
    const teamSlugs = await teamDropSlugs();
    expect(teamSlugs.length).toBeGreaterThan(0);
    const target = teamSlugs[0]!;

    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    try {
      const p = await login(ctx, "acting-viewer@example.test");
      await p.goto(url.replace(/^https?:\/\/[^/]+/, app.baseUrl));
      await p.getByRole("button", { name: `Join ${TEAM} as viewer` }).click();
      await p.getByTestId("join-said").waitFor();
      await p.goto(`${app.baseUrl}/dashboard`);
      await switchTo(p, `${TEAM} (viewer)`);
      await p.getByTestId(`drop-${target}`).waitFor();

      await p.goto(`${app.baseUrl}/dashboard/drops/${target}`);
      await p.getByRole("button", { name: "Delete" }).click();
      await p.getByRole("button", { name: "Confirm delete" }).click();
      const alert = p.getByRole("alert").filter({ hasText: "may not delete" });
      await alert.waitFor();
      await expect(alert.textContent()).resolves.toContain("Your role in this team (viewer) may not delete");
      await expect(alert.textContent()).resolves.toContain("forbidden");
      expect(await teamDropSlugs()).toContain(target);
      const live = await pool.query("select 1 from drops where slug = $1", [target]);
      expect(live.rowCount).toBe(1);

      // The drop zone's upload as a viewer of the team: 403 forbidden, no drop made.
      const before = (await teamDropSlugs()).length;
      const upload = await ctx.request.post(`${app.baseUrl}/dashboard/upload`, {
        headers: { origin: app.baseUrl, "content-type": "application/json" },
        data: { files: { "index.html": "<h1>viewer</h1>" } },
      });
      expect(upload.status()).toBe(403);
      expect(((await upload.json()) as { code: string }).code).toBe("forbidden");
      expect(await teamDropSlugs()).toHaveLength(before);

      // Billing as a viewer of the team: a notice, no plan controls.
      await p.goto(`${app.baseUrl}/dashboard/billing`);
      await expect(p.getByTestId("billing-refused").textContent()).resolves.toContain("(viewer) may not see");
    } finally {
      await ctx.close();
    }
  });

  it("a choice that no longer holds acts as the person: removed from the team, the dashboard is the person's", async () => {
    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    try {
      const p = await login(ctx, "acting-leaver@example.test");
      const inv = await api(`/teams/${SLUG}/invites`, { role: "member" });
      const { url, code } = (await inv.json()) as { url: string; code: string };
      registerSecret("team invite code", code);
      await p.goto(url.replace(/^https?:\/\/[^/]+/, app.baseUrl));
      await p.getByRole("button", { name: `Join ${TEAM} as member` }).click();
      await p.getByTestId("join-said").waitFor();
      await p.goto(`${app.baseUrl}/dashboard`);
      await switchTo(p, `${TEAM} (member)`);
      await expect(dropsTotal(p)).resolves.toBe(`(${(await teamDropSlugs()).length})`);

      const me = await pool.query<{ id: string }>("select id from accounts where email = $1", [
        "acting-leaver@example.test",
      ]);
      const removed = await fetch(`${app.baseUrl}/teams/${SLUG}/members/${me.rows[0]!.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${ownerKey}` },
      });
      expect(removed.status).toBe(200);
      await p.reload();
      await expect(p.getByTestId("acting-team").count()).resolves.toBe(0);
      await expect(dropsTotal(p)).resolves.toBe("(0)");
      await expect(p.getByLabel("Acting as").count()).resolves.toBe(0);
    } finally {
      await ctx.close();
    }
  });

  it("the consent page offers the person and their teams; approving for the team stores the team on the grant", async () => {
    // The agent's listener for the redirect back.
    const listener = createServer((_req, res) => res.end("back"));
    await new Promise<void>((r) => listener.listen(0, "127.0.0.1", r));
    const redirect = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`;
    const clientId = await registerClient(app.baseUrl, "Team Connector", redirect);
    const ctx = await browser.newContext({ viewport: VIEWPORTS.phone });
    try {
      const p = await login(ctx, OWNER);
      const errors = scriptErrors(p);
      await p.goto(authorizationUrl(app.baseUrl, clientId, redirect, pkcePair().challenge));
      await p.waitForURL(/\/dashboard\/connect\//);
      const group = p.getByRole("group", { name: "Connect as" });
      await expect(group.getByRole("radio").count()).resolves.toBe(2);
      await expect(group.getByRole("radio", { name: /yourself/ }).isChecked()).resolves.toBe(true);
      expect(await axeViolations(p, "consent with teams (phone)")).toEqual([]);
      expect(await layoutProblems(p)).toEqual([]);

      await group.getByRole("radio", { name: `the team ${TEAM} (your role: owner)` }).check();
      await Promise.all([p.waitForURL(`${redirect}**`), p.getByRole("button", { name: "Approve" }).click()]);
      expect(new URL(p.url()).searchParams.get("code")).toBeTruthy();
      const grants = await pool.query<{ team: string | null }>(
        `select t.slug as team from oauth_models o join accounts a on a.id = o.account_id
           left join teams t on t.id = o.team_id where o.model = 'Grant' and a.email = $1 and o.client_id = $2`,
        [OWNER, clientId],
      );
      expect(grants.rows).toEqual([{ team: SLUG }]);
      expect(errors).toEqual([]);
    } finally {
      await ctx.close();
      listener.close();
    }
  });

  it("acting for a suspended team: the dashboard says the team is suspended atop the page and is read-only; the person's own is neither", async () => {
    const team = "(select account_id from teams where slug = $1)";
    await pool.query(`update accounts set suspended_at = now(), suspended_reason = 'spam' where id = ${team}`, [SLUG]);
    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    try {
      const p = await login(ctx, OWNER);
      await expect(p.getByTestId("acting-team").count()).resolves.toBe(0);
      await expect(p.getByTestId("suspended").count()).resolves.toBe(0);
      await switchTo(p, `${TEAM} (owner)`);
      const notice = p.getByTestId("suspended");
      await expect(notice.textContent()).resolves.toContain(`The team ${TEAM} is suspended (spam).`);
      expect(await axeViolations(p, "dashboard, acting for a suspended team")).toEqual([]);
      await expect(p.locator("#drop-name").isDisabled()).resolves.toBe(true);
      // The team's named drop (deployed above): files dropped on its Redeploy zone are not sent,
      // and nothing is shown, as its buttons are disabled.
      const [teamSlug] = await teamDropSlugs();
      await p.goto(`${app.baseUrl}/dashboard/drops/${teamSlug}`);
      await expect(p.getByRole("button", { name: "Choose files" }).isDisabled()).resolves.toBe(true);
      const sent: string[] = [];
      p.on("request", (r) => {
        if (r.method() !== "GET") sent.push(`${r.method()} ${r.url()}`);
      });
      await dropFiles(p, [{ name: "index.html", body: "<!doctype html><title>Again</title>", type: "text/html" }]);
      await p.waitForTimeout(1000);
      expect(sent).toEqual([]);
      await expect(p.getByTestId("deploy-status").textContent()).resolves.toBe("");
      await switchTo(p, `${OWNER} (you)`);
      await expect(p.getByTestId("suspended").count()).resolves.toBe(0);
      await expect(p.locator("#drop-name").isDisabled()).resolves.toBe(false);
    } finally {
      await pool.query(`update accounts set suspended_at = null, suspended_reason = null where id = ${team}`, [SLUG]);
      await ctx.close();
    }
  });
});
