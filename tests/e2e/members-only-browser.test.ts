import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext } from "playwright-core";
import { createContext, type AppContext } from "@/lib/context";
import { setPlan, upsertAccount } from "@/lib/db/accounts";
import type { AccountRow } from "@/lib/db/schema";
import { findTeamFor } from "@/lib/db/teams";
import { createDrop } from "@/lib/deploy/store";
import { setAccess } from "@/lib/drops/access";
import { parseEnv } from "@/lib/env";
import { UNLOCK_PATH } from "@/lib/serve/access";
import { issueMemberToken } from "@/lib/serve/member-token";
import { findDropBySlug } from "@/lib/db/queries";
import { actAsTeam } from "@/lib/teams/acting";
import { createInvite, joinTeam } from "@/lib/teams/invites";
import { createTeam } from "@/lib/teams/teams";
import { axeViolations, focusStop, tabTo } from "../support/a11y";
import { freePort, requestAt, startApp, type RunningApp } from "../support/app-server";
import { launchChromium, layoutProblems, providerSignIn, scriptErrors, VIEWPORTS } from "../support/browser";
import { startOidcProvider, type OidcHarness } from "../support/oidc";
import { startPgServer, type PgServer } from "../support/pg-server";
import { registerSecret } from "../support/secrets";

// Members-only drops in real Chromium against the built app (`npm run build` first), on
// PostgreSQL, logging in through a real OpenID provider: a member opening the drop goes through
// the login page and the provider and comes back to the page; a logged-in person who is not a
// member gets the 403 page (axe, WCAG 2.2 AA, and by keyboard) with nothing of the drop; a
// replayed token and a token taken to another drop are refused. The team and its drops are made
// with the service functions over the app's own database and data directory (until team keys
// deploy as the team over REST).

let pg: PgServer;
let oidc: OidcHarness;
let app: RunningApp;
let browser: Browser;
let ctx: AppContext;
let dataDir = "";
let port = 0;
let vars: Record<string, string> = {};
let member: AccountRow;
let first = "";
let second = "";
const MARKER = "Members-only quarterly plan";
const TEAM = "mo-browser-team";

const SITE = [
  {
    path: "index.html",
    bytes: new TextEncoder().encode(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Team plan</title><link rel="stylesheet" href="/style.css"></head><body><main><h1>${MARKER}</h1></main></body></html>`,
    ),
  },
  { path: "style.css", bytes: new TextEncoder().encode("h1 { color: rgb(12, 34, 56); }") },
];

const dropUrl = (slug: string, path = "/") => `http://${slug}.${app.serveDomain}${path}`;

/** A person as the provider vouches for them (`<login>@example.test`), as their login makes them. */
function person(login: string): Promise<AccountRow> {
  return upsertAccount(ctx.db, {
    id: `acc_mo${login.replace(/[^a-z0-9]/g, "")}`,
    issuer: oidc.issuer,
    subject: login,
    email: `${login}@example.test`,
    emailVerified: true,
  });
}

const asPerson = (account: AccountRow) => ({
  account,
  via: "session" as const,
  credentialKey: `session:${account.id}`,
});

async function newContext(viewport: { width: number; height: number } = VIEWPORTS.desktop): Promise<BrowserContext> {
  const c = await browser.newContext({ viewport });
  // The provider's login page asks for a web font; there is no internet here.
  await c.route("https://fonts.googleapis.com/**", (r) => r.abort());
  await c.route("https://fonts.gstatic.com/**", (r) => r.abort());
  return c;
}

/** A browser context of `login`, logged in (through the provider) on the app host. */
async function loggedIn(login: string, viewport?: { width: number; height: number }): Promise<BrowserContext> {
  const c = await newContext(viewport);
  const p = await c.newPage();
  await p.goto(`${app.baseUrl}/login`);
  await providerSignIn(p, login, `${app.baseUrl}/dashboard`);
  await p.close();
  return c;
}

beforeAll(async () => {
  pg = await startPgServer();
  port = await freePort();
  dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-members-"));
  oidc = await startOidcProvider({ redirectUris: [`http://localhost:${port}/api/auth/callback/oidc`] });
  vars = {
    DATABASE_URL: pg.url,
    OIDC_ISSUER: oidc.issuer,
    OIDC_CLIENT_ID: oidc.clientId,
    OIDC_CLIENT_SECRET: oidc.clientSecret,
  };
  app = await startApp(vars, { port, dataDir });
  expect((await fetch(`${app.baseUrl}/login`)).status).toBe(200);
  // The app migrates the database on its first use of it: let it, before this process opens it.
  expect((await fetch(`${app.baseUrl}/healthz`)).status).toBe(200);
  ctx = await createContext(
    parseEnv({
      ...process.env,
      DATABASE_URL: pg.url,
      DATA_DIR: app.dataDir,
      BASE_URL: app.baseUrl,
      SERVE_DOMAIN: app.serveDomain,
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: oidc.clientId,
      OIDC_CLIENT_SECRET: oidc.clientSecret,
    }),
  );
  browser = await launchChromium();
  const owner = await person("mo-owner");
  await setPlan(ctx.db, owner.id, "team");
  const ownerCaller = asPerson({ ...owner, plan: "team" });
  await createTeam(ctx, ownerCaller, () => Promise.resolve({ name: "Plan Team", slug: TEAM }));
  const { code } = await createInvite(ctx, ownerCaller, TEAM, () => Promise.resolve({ role: "viewer" }));
  registerSecret("team invite code", code);
  member = await person("mo-member");
  await joinTeam(ctx, asPerson(member), () => Promise.resolve({ code }));
  await person("mo-stranger");
  const team = (await findTeamFor(ctx.db, TEAM, owner.id))!.team;
  const acting = (await actAsTeam(ctx, ownerCaller, team))!;
  for (const i of [0, 1]) {
    const d = await createDrop(ctx, acting, { files: SITE, ttl: null });
    await setAccess(ctx, acting.account, d.slug, { mode: "members" });
    if (i === 0) first = d.slug;
    else second = d.slug;
  }
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await ctx?.dbHandle.close();
  await oidc?.close();
  await pg?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("a member of the owning team", () => {
  it("opens the drop, logs in through the provider, comes back to the page with its stylesheet; the cookie is host-only", async () => {
    const c = await newContext();
    try {
      const p = await c.newPage();
      const errors = scriptErrors(p);
      await p.goto(dropUrl(first, "/?from=mail"));
      await p.waitForURL(/\/login\?next=/);
      await providerSignIn(p, "mo-member", dropUrl(first, "/?from=mail"));
      await p.getByRole("heading", { level: 1, name: MARKER }).waitFor();
      await expect(p.locator("h1").evaluate((el) => getComputedStyle(el).color)).resolves.toBe("rgb(12, 34, 56)");
      const cookies = await c.cookies(dropUrl(first));
      expect(cookies.find((x) => x.name === "dropsite-access")).toMatchObject({
        httpOnly: true,
        sameSite: "Lax",
        path: "/",
        domain: `${first}.localhost`,
      });
      // The other members-only drop is another host: it asks the app host again, and (the
      // session being there) comes straight back with its own token.
      await p.goto(dropUrl(second));
      await p.getByRole("heading", { level: 1, name: MARKER }).waitFor();
      expect(p.url()).toBe(dropUrl(second));
      expect(errors).toEqual([]);
    } finally {
      await c.close();
    }
  });
});

describe.each(Object.entries(VIEWPORTS))("a logged-in person who is not a member, at %s width", (name, viewport) => {
  it("gets the 403 page saying so, with nothing of the drop; axe finds nothing; the link is reached by keyboard", async () => {
    const c = await loggedIn("mo-stranger", viewport);
    try {
      const p = await c.newPage();
      const errors = scriptErrors(p);
      const res = await p.goto(dropUrl(first, "/style.css"));
      expect(res?.status()).toBe(403);
      expect(new URL(p.url()).pathname).toBe("/access/members");
      await expect(
        p.getByRole("heading", { level: 1, name: "Only the team's members can see this site" }).count(),
      ).resolves.toBe(1);
      await expect(p.getByText("mo-stranger@example.test").count()).resolves.toBe(1);
      const html = await p.content();
      expect(html).not.toContain(MARKER);
      expect(html).not.toContain("rgb(12, 34, 56)");
      expect(await c.cookies(dropUrl(first))).toEqual([]);
      expect(await axeViolations(p, `members-only 403 (${name})`)).toEqual([]);
      expect(await layoutProblems(p)).toEqual([]);
      await tabTo(p, p.getByRole("link", { name: "Go to your dashboard" }));
      expect((await focusStop(p))?.ring).toBe(true);
      await Promise.all([p.waitForURL(`${app.baseUrl}/dashboard`), p.keyboard.press("Enter")]);
      expect(errors).toEqual([]);
    } finally {
      await c.close();
    }
  });
});

describe("the token", () => {
  /**
   * The unlock URL the app host sends the logged-in browser to for `slug`, caught before the
   * drop host sees it (a route sees the first request of a navigation, not its redirects).
   */
  async function unlockUrl(c: BrowserContext, slug: string): Promise<string> {
    let caught = "";
    const matcher = (u: URL) => u.origin === app.baseUrl && u.pathname === "/access/members";
    await c.route(matcher, async (r) => {
      const res = await r.fetch({ maxRedirects: 0 });
      caught = res.headers().location ?? "";
      await r.fulfill({ status: 200, contentType: "text/plain", body: "caught" });
    });
    const p = await c.newPage();
    await p.goto(`${app.baseUrl}/access/members?drop=${slug}&return=%2F`);
    await c.unroute(matcher);
    await p.close();
    expect(caught).toMatch(/[?&]token=mt_/);
    registerSecret("member access token", new URL(caught).searchParams.get("token"));
    return caught;
  }

  it("replayed: the second use is refused with a page, no cookie and nothing of the drop", async () => {
    const c = await loggedIn("mo-member");
    try {
      const url = await unlockUrl(c, first);
      const p = await c.newPage();
      await p.goto(url);
      await p.getByRole("heading", { level: 1, name: MARKER }).waitFor();
      await c.clearCookies({ domain: `${first}.localhost` });
      const again = await p.goto(url);
      expect(again?.status()).toBe(403);
      await expect(
        p.getByRole("heading", { level: 1, name: "This sign-in link can no longer be used" }).count(),
      ).resolves.toBe(1);
      expect(await p.content()).not.toContain(MARKER);
      expect(await c.cookies(dropUrl(first))).toEqual([]);
      expect(await axeViolations(p, "refused token")).toEqual([]);
    } finally {
      await c.close();
    }
  });

  it("taken to another drop: refused there, and spent for its own", async () => {
    const c = await loggedIn("mo-member");
    try {
      const url = new URL(await unlockUrl(c, first));
      const elsewhere = new URL(url.pathname + url.search, dropUrl(second));
      const p = await c.newPage();
      const res = await p.goto(elsewhere.toString());
      expect(res?.status()).toBe(403);
      expect(await p.content()).not.toContain(MARKER);
      expect(await c.cookies(dropUrl(second))).toEqual([]);
      const own = await p.goto(url.toString());
      expect(own?.status()).toBe(403);
      expect(await c.cookies(dropUrl(first))).toEqual([]);
    } finally {
      await c.close();
    }
  });
});

// The Vercel path: `next start` (proxy.ts rewrites a drop host to pages/api/serve-drop) over the
// same database and data directory answers the gate and the token the same way. Last: it stops
// the data plane's listener and takes its port.
describe("on the Vercel path (next start)", () => {
  it("redirects without the cookie (no-store), spends a token once for the cookie, and serves with it", async () => {
    await app.stop();
    const next = spawn(
      process.execPath,
      [
        path.resolve(import.meta.dirname, "../../node_modules/next/dist/bin/next"),
        "start",
        "-p",
        String(port),
        "-H",
        "127.0.0.1",
      ],
      {
        cwd: path.resolve(import.meta.dirname, "../.."),
        env: {
          ...process.env,
          ...vars,
          NODE_ENV: "production",
          PORT: String(port),
          BASE_URL: app.baseUrl,
          SERVE_DOMAIN: app.serveDomain,
          DATA_DIR: dataDir,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    next.stdout.on("data", (d) => (out += d));
    next.stderr.on("data", (d) => (out += d));
    const send = (slug: string, p: string, headers: Record<string, string> = {}) =>
      requestAt(port, `${slug}.${app.serveDomain}`, p, { headers });
    try {
      for (let i = 0; ; i++) {
        if (next.exitCode !== null) throw new Error(`next start exited:\n${out}`);
        const up = await requestAt(port, `localhost:${port}`, "/limits").catch(() => undefined);
        if (up?.status === 200) break;
        if (i > 240) throw new Error(`next start did not answer:\n${out}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      const locked = await send(first, "/style.css");
      expect(locked.status).toBe(302);
      expect(locked.headers["cache-control"]).toBe("private, no-store");
      expect(locked.headers.location).toBe(
        `${app.baseUrl}/access/members?drop=${first}&return=${encodeURIComponent("/style.css")}`,
      );
      expect(locked.text).not.toContain("rgb(12, 34, 56)");
      const entry = await requestAt(port, `localhost:${port}`, `/access/members?drop=${first}&return=%2F`);
      expect(entry.status).toBe(302);
      expect(entry.headers.location).toMatch(/\/login\?next=/);
      const drop = (await findDropBySlug(ctx.db, first))!;
      const token = await issueMemberToken(ctx, drop, member.id);
      registerSecret("member access token", token);
      const unlock = `${UNLOCK_PATH}?token=${token}&return=%2Fstyle.css`;
      const opened = await send(first, unlock);
      expect(opened.status).toBe(302);
      expect(opened.headers.location).toBe("/style.css");
      const cookie = String(opened.headers["set-cookie"]).split(";")[0]!;
      expect(cookie).toMatch(/^dropsite-access=/);
      const css = await send(first, "/style.css", { cookie });
      expect(css.status).toBe(200);
      expect(css.text).toContain("rgb(12, 34, 56)");
      expect(css.headers["cache-control"]).toContain("private");
      const replay = await send(first, unlock);
      expect(replay.status).toBe(403);
      expect(replay.headers["set-cookie"]).toBeUndefined();
      expect(replay.text).not.toContain("rgb(12, 34, 56)");
    } finally {
      const exited = new Promise((r) => next.once("exit", r));
      next.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (next.exitCode === null) next.kill("SIGKILL");
    }
  }, 120_000);
});
