import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { axeViolations } from "../support/a11y";
import { startApp, type RunningApp } from "../support/app-server";
import { devSignIn, launchChromium, layoutProblems, personWithTeam, scriptErrors, VIEWPORTS } from "../support/browser";
import { startPgServer, type PgServer } from "../support/pg-server";
import { registerSecret } from "../support/secrets";

// Teams in a real browser against the built app (`npm run build` first), on PostgreSQL: an
// invitation's URL (a person without a session goes through the login page and back, sees the
// team and the role, joins with one button by keyboard; a used invitation's page says it can no
// longer be used), the Teams page and a team's page (members and roles, invitations made and
// revoked, the audit log), as an owner and as a member. axe (WCAG 2.2 AA) and the layout checks
// at 1280 and 390 px.

let app: RunningApp;
let pg: PgServer;
let browser: Browser;
let ownerKey = "";
const SLUG = "browser-team";

const api = (path: string, init: RequestInit = {}) => fetch(`${app.baseUrl}${path}`, init);
const asOwner = (path: string, body?: unknown) =>
  api(path, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${ownerKey}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

beforeAll(async () => {
  pg = await startPgServer();
  app = await startApp({ DATABASE_URL: pg.url });
  browser = await launchChromium();
  const { Pool } = await import("pg");
  const pool = new Pool({ connectionString: pg.url });
  try {
    ownerKey = await personWithTeam(browser, app.baseUrl, {
      email: "team-owner@example.test",
      name: "Browser Team",
      slug: SLUG,
      db: pool,
    });
  } finally {
    await pool.end();
  }
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await pg?.stop();
});

async function inviteUrl(): Promise<string> {
  const res = await asOwner(`/teams/${SLUG}/invites`, { role: "member" });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { code: string; url: string };
  registerSecret("team invite code", body.code);
  return body.url.replace(/^https?:\/\/[^/]+/, app.baseUrl);
}

describe("the invitation's page", () => {
  it.each(Object.entries(VIEWPORTS))(
    "at %s: login and back, the team and role shown, joined by keyboard; the used link says so",
    async (name, viewport) => {
      const url = await inviteUrl();
      const email = `joiner-${name}@example.test`;
      const ctx = await browser.newContext({ viewport });
      try {
        const p = await ctx.newPage();
        const errors = scriptErrors(p);
        await p.goto(url);
        await p.waitForURL(/\/login\?next=/);
        await devSignIn(p, email);
        await p.waitForURL(url);
        await expect(p.getByRole("heading", { level: 2 }).textContent()).resolves.toContain("Browser Team");
        await expect(p.getByText("You are invited to join as member.").count()).resolves.toBe(1);
        expect(await axeViolations(p, `join page (${name})`)).toEqual([]);
        expect(await layoutProblems(p)).toEqual([]);

        await p.getByRole("button", { name: "Join Browser Team as member" }).focus();
        await p.keyboard.press("Enter");
        await p.getByTestId("join-said").filter({ hasText: "You joined Browser Team as member." }).waitFor();
        const members = (await (await asOwner(`/teams/${SLUG}/members`)).json()) as {
          members: { email: string; role: string }[];
        };
        expect(members.members.filter((m) => m.email === email).map((m) => m.role)).toEqual(["member"]);

        await p.goto(url);
        await expect(p.getByRole("heading", { level: 2 }).textContent()).resolves.toBe(
          "This invitation can no longer be used",
        );
        await expect(p.getByRole("button", { name: /^Join / }).count()).resolves.toBe(0);
        expect(await axeViolations(p, `used invitation (${name})`)).toEqual([]);
        await p.goto(`${app.baseUrl}/dashboard/teams/join/ti_nosuchcode`);
        await expect(p.getByRole("heading", { level: 2 }).textContent()).resolves.toBe("No such invitation");
        expect(errors).toEqual([]);
      } finally {
        await ctx.close();
      }
    },
  );
});

describe("the Teams page and a team's page", () => {
  it.each(Object.entries(VIEWPORTS))(
    "at %s: the owner opens the team, invites and revokes, changes a role; the audit shows it",
    async (name, viewport) => {
      const ctx = await browser.newContext({ viewport });
      try {
        const p = await ctx.newPage();
        const errors = scriptErrors(p);
        await p.goto(`${app.baseUrl}/login`);
        await devSignIn(p, "team-owner@example.test");
        await p.waitForURL(`${app.baseUrl}/dashboard`);
        await p.goto(`${app.baseUrl}/dashboard/teams`);
        await expect(p.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Teams");
        expect(await axeViolations(p, `teams page (${name})`)).toEqual([]);
        expect(await layoutProblems(p)).toEqual([]);
        await Promise.all([
          p.waitForURL(`${app.baseUrl}/dashboard/teams/${SLUG}`),
          p.getByRole("link", { name: "Browser Team" }).click(),
        ]);
        await expect(p.getByText("Your role: owner.").count()).resolves.toBe(1);

        // An invitation made here: its link shown once, listed, then revoked.
        await p.getByLabel("Role", { exact: true }).selectOption("viewer");
        await p.getByRole("button", { name: "Create invitation" }).click();
        const link = (await p.getByTestId("new-invite-secret").textContent())!.trim();
        registerSecret("team invite link", link.split("/").pop());
        expect(link).toMatch(/\/dashboard\/teams\/join\/ti_/);
        const invites = (await (await asOwner(`/teams/${SLUG}/invites`)).json()) as {
          invites: { id: string; role: string }[];
        };
        const made = invites.invites.find((i) => i.role === "viewer")!;
        expect(await axeViolations(p, `team page (${name})`)).toEqual([]);
        expect(await layoutProblems(p)).toEqual([]);
        await p.getByRole("button", { name: `Revoke the viewer invitation ${made.id}` }).click();
        await p.getByTestId(`invite-${made.id}`).waitFor({ state: "detached" });

        // A member's role, changed with the select and its button.
        const joiner = `joiner-${name}@example.test`;
        await p.getByLabel(`Role of ${joiner}`, { exact: true }).selectOption("admin");
        await p.getByRole("button", { name: `Save role of ${joiner}` }).click();
        await p
          .getByTestId("members-said")
          .filter({ hasText: `${joiner} is now admin.` })
          .waitFor();
        const members = (await (await asOwner(`/teams/${SLUG}/members`)).json()) as {
          members: { email: string; role: string }[];
        };
        expect(members.members.find((m) => m.email === joiner)?.role).toBe("admin");
        await p.reload();
        await expect(p.getByTestId("team-audit").locator("tbody tr").first().textContent()).resolves.toContain(
          "member.role_changed",
        );
        expect(errors).toEqual([]);
      } finally {
        await ctx.close();
      }
    },
  );

  it("a member sees the members only; someone outside the team gets 404", async () => {
    const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
    try {
      const p = await ctx.newPage();
      const url = await inviteUrl();
      await p.goto(url);
      await p.waitForURL(/\/login\?next=/);
      await devSignIn(p, "plain-member@example.test");
      await p.waitForURL(url);
      await p.getByRole("button", { name: "Join Browser Team as member" }).click();
      await p.getByRole("link", { name: "Open the team's page" }).click();
      await p.waitForURL(`${app.baseUrl}/dashboard/teams/${SLUG}`);
      await expect(p.getByText("Your role: member.").count()).resolves.toBe(1);
      await expect(p.getByRole("heading", { name: "Invitations" }).count()).resolves.toBe(0);
      await expect(p.getByRole("heading", { name: "Audit log" }).count()).resolves.toBe(0);
      await expect(p.getByRole("button", { name: /^Save role of/ }).count()).resolves.toBe(0);
      await expect(p.getByRole("button", { name: "Leave team" }).count()).resolves.toBe(1);
      expect(await axeViolations(p, "team page as a member")).toEqual([]);

      const other = await browser.newContext({ viewport: VIEWPORTS.desktop });
      const q = await other.newPage();
      await q.goto(`${app.baseUrl}/login`);
      await devSignIn(q, "outsider@example.test");
      await q.waitForURL(`${app.baseUrl}/dashboard`);
      const res = await q.goto(`${app.baseUrl}/dashboard/teams/${SLUG}`);
      expect(res?.status()).toBe(404);
      await q.goto(`${app.baseUrl}/dashboard/teams`);
      await expect(q.getByText("Teams are part of the Team plan").count()).resolves.toBe(1);
      await other.close();
    } finally {
      await ctx.close();
    }
  });
});
