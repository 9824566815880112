import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort, grantPlan, startApp, type RunningApp } from "../support/app-server";
import { startOidcProvider, type OidcHarness } from "../support/oidc";
import { launchChromium, loginWithProvider, VIEWPORTS } from "../support/browser";
import { axeViolations, focusStop, hasFocus, tabTo, type FocusStop } from "../support/a11y";
import { PAGES, type World } from "../support/pages";
import { authorizationUrl, pkcePair, registerClient } from "../support/oauth";
import { registerSecret } from "../support/secrets";

// WCAG 2.2 AA in a real browser. Every page a person sees (the list is tests/support/pages.ts)
// passes axe-core's WCAG 2.0/2.1/2.2 A and AA rules at 1280 and 390 px with no violation of any
// impact, and every focus stop Tab reaches on it draws a focus ring. Then the actions, with the
// keyboard alone: deploying, copying, minting and revoking a key, the delete confirmation (focus
// moves in, stays in, Escape closes it and focus returns), approving a device; what changes is
// announced (status lines, or focus moving to it); and the deploy's moving bar stands still for
// people who ask for reduced motion.

let app: RunningApp;
let oidc: OidcHarness;
let browser: Browser;
let visitor: BrowserContext;
let member: BrowserContext;
let world: World;
/** The member's webhook receiver (loopback: the app runs with WEBHOOKS_ALLOW_PRIVATE=1), so the dashboard lists a webhook with deliveries. */
let receiver: Server;
let dataDir: string;
const TEAM = "ada-team";

/** Accessible content for drops, so previews and drop pages add no findings of the person's own. */
const site = (h1: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${h1}</title></head><body><main><h1>${h1}</h1></main></body></html>`;

async function newContext(): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
  // The provider's login page asks for a web font; there is no internet here.
  await ctx.route(/^https:\/\/fonts\.(googleapis|gstatic)\.com\//, (r) => r.abort());
  await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.baseUrl });
  return ctx;
}

/** A call of the API as ada, with her ID token. */
async function asAda(pathname: string, body?: unknown): Promise<Response> {
  return fetch(`${app.baseUrl}${pathname}`, {
    method: body === undefined ? "GET" : "POST",
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: {
      authorization: `Bearer ${await oidc.mintIdToken({ sub: "ada", email: "ada@example.test" })}`,
      "content-type": "application/json",
    },
  });
}

/** Deploys an account drop through the API with the account's ID token; its slug and URL. */
async function deployAs(
  sub: string,
  html: string,
  rules?: { _redirects: string; _headers: string },
): Promise<{ slug: string; url: string }> {
  const token = await oidc.mintIdToken({ sub, email: `${sub}@example.test` });
  const body = rules ? JSON.stringify({ files: { "index.html": html, ...rules } }) : html;
  const type = rules ? "application/json" : "text/html";
  const res = await fetch(`${app.baseUrl}/deploy`, {
    method: "POST",
    body,
    headers: { authorization: `Bearer ${token}`, "content-type": type },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { slug: string; url: string };
}

beforeAll(async () => {
  const port = await freePort();
  oidc = await startOidcProvider({ redirectUris: [`http://localhost:${port}/api/auth/callback/oidc`] });
  dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-a11y-"));
  app = await startApp(
    {
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: oidc.clientId,
      OIDC_CLIENT_SECRET: oidc.clientSecret,
      WEBHOOKS_ALLOW_PRIVATE: "1",
    },
    { port, dataDir },
  );
  // Ada's account (made by her first call) on the Team plan, owning a team for the teams pages.
  expect((await asAda("/drops")).status).toBe(200);
  app = await grantPlan(app, "ada@example.test", "team");
  expect((await asAda("/teams", { name: "Ada's team", slug: TEAM })).status).toBe(201);
  browser = await launchChromium();
  receiver = createServer((req, res) => void req.resume().on("end", () => res.writeHead(204).end()));
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const hook = await fetch(`${app.baseUrl}/webhooks`, {
    method: "POST",
    body: JSON.stringify({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` }),
    headers: {
      authorization: `Bearer ${await oidc.mintIdToken({ sub: "ada", email: "ada@example.test" })}`,
      "content-type": "application/json",
    },
  });
  expect(hook.status).toBe(201);
  const webhookId = ((await hook.json()) as { id: string }).id;
  const drop = await deployAs("ada", site("Ada's site"));
  const ruled = await deployAs("ada", site("Ada's app"), {
    _redirects: "/old /new 301\n/app/* /index.html 200\n",
    _headers: "/*\n  Cross-Origin-Opener-Policy: same-origin\n  Cross-Origin-Embedder-Policy: require-corp\n",
  });
  // The app process's own worker delivers the deploys' events (server.mjs starts it): wait for the log.
  for (let i = 0; i < 150; i++) {
    const log = await fetch(`${app.baseUrl}/webhooks/${webhookId}/deliveries`, {
      headers: { authorization: `Bearer ${await oidc.mintIdToken({ sub: "ada", email: "ada@example.test" })}` },
    });
    if (((await log.json()) as { deliveries: unknown[] }).deliveries.length >= 2) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  visitor = await newContext();
  member = await newContext();
  // Log in once through the OpenID provider's own pages; the member context keeps the session.
  const page = await member.newPage();
  await loginWithProvider(page, app.baseUrl, "ada");
  await page.close();
  world = {
    base: app.baseUrl,
    slug: drop.slug,
    dropUrl: drop.url,
    rulesSlug: ruled.slug,
    team: TEAM,
    inviteUrl: async () => {
      const res = await asAda(`/teams/${TEAM}/invites`, { role: "member" });
      expect(res.status).toBe(201);
      const invite = (await res.json()) as { code: string; url: string };
      registerSecret("team invite code", invite.code);
      return invite.url;
    },
    deviceCode: async () => {
      const res = await fetch(`${app.baseUrl}/device/authorize`, { method: "POST" });
      expect(res.status).toBe(200);
      return ((await res.json()) as { user_code: string }).user_code;
    },
    oauthAuthorizeUrl: async () => {
      const redirect = "http://127.0.0.1:9/callback";
      const clientId = await registerClient(app.baseUrl, "Accessibility Agent", redirect);
      return authorizationUrl(app.baseUrl, clientId, redirect, pkcePair().challenge);
    },
    deployFromPage: async (p) => {
      await p
        .getByTestId("file-input")
        .setInputFiles({ name: "index.html", mimeType: "text/html", buffer: Buffer.from(site("Dropped")) });
      await p.getByTestId("deployed-url").waitFor({ timeout: 30_000 });
      await p.getByTestId("qr-code").waitFor();
    },
  };
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await oidc?.close();
  await new Promise((r) => receiver?.close(r));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function open(as: "visitor" | "member", width: keyof typeof VIEWPORTS): Promise<Page> {
  const page = await (as === "visitor" ? visitor : member).newPage();
  await page.setViewportSize(VIEWPORTS[width]);
  return page;
}

describe.each(PAGES)("$name ($as)", (seen) => {
  it.each(Object.keys(VIEWPORTS) as (keyof typeof VIEWPORTS)[])(
    "passes WCAG 2.2 AA (axe, every impact) at the %s width",
    async (width) => {
      const page = await open(seen.as, width);
      try {
        await seen.open(page, world);
        await page.waitForLoadState("load");
        const name = `${seen.name} at ${VIEWPORTS[width].width}px`;
        expect(await axeViolations(page, name), `axe violations on ${name}`).toEqual([]);
        if (width !== "desktop") return;
        // Every focus stop Tab reaches (the first 40) draws a ring.
        const unmarked: FocusStop[] = [];
        for (let i = 0; i < 40; i++) {
          await page.keyboard.press("Tab");
          const stop = await focusStop(page);
          if (stop && !stop.ring) unmarked.push(stop);
        }
        expect(unmarked, `focus stops without a visible focus ring on ${name}`).toEqual([]);
      } finally {
        await page.close();
      }
    },
  );
});

/** Records every text a status element shows from now on. */
async function recordTexts(page: Page, testId: string): Promise<() => Promise<string[]>> {
  await page.evaluate((id) => {
    const seen: string[] = [];
    (window as unknown as Record<string, string[]>)[`seen-${id}`] = seen;
    const el = document.querySelector(`[data-testid="${id}"]`);
    if (!el) throw new Error(`no element ${id}`);
    new MutationObserver(() => seen.push(el.textContent ?? "")).observe(el, {
      subtree: true,
      childList: true,
      characterData: true,
    });
  }, testId);
  return () => page.evaluate((id) => (window as unknown as Record<string, string[]>)[`seen-${id}`]!, testId);
}

/** The text of the status line (role=status) that follows a button, where copy buttons announce. */
const statusAfter = (page: Page, name: string) =>
  page.getByRole("button", { name }).locator("xpath=following-sibling::*[@role='status'][1]");

describe("with the keyboard alone", () => {
  it("copies a code sample and deploys from the landing page; progress, the result and the copy are announced", async () => {
    // A context of its own: the file chooser is intercepted per context.
    const own = await newContext();
    const page = await own.newPage();
    await page.goto(app.baseUrl);
    const copy = page.getByRole("button", { name: "Copy the curl example" });
    await tabTo(page, copy);
    expect((await focusStop(page))?.ring).toBe(true);
    await page.keyboard.press("Enter");
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toContain(
      "curl --data-binary @index.html",
    );
    await expect(statusAfter(page, "Copy the curl example").textContent()).resolves.toBe("Copied to the clipboard.");

    const announced = await recordTexts(page, "deploy-announcement");
    const choose = page.getByRole("button", { name: "Choose files" });
    // Wait for the chooser before any key is pressed: Playwright turns on its interception of file
    // dialogs when the wait starts, and a dialog opened before that is never reported.
    const chooserShown = page.waitForEvent("filechooser");
    await tabTo(page, choose, { back: true });
    expect((await focusStop(page))?.ring).toBe(true);
    await page.keyboard.press("Enter");
    const chooser = await chooserShown;
    await chooser.setFiles({ name: "index.html", mimeType: "text/html", buffer: Buffer.from(site("By keyboard")) });
    const link = page.getByTestId("deployed-url");
    await link.waitFor({ timeout: 30_000 });
    const url = (await link.getAttribute("href"))!;
    const said = await announced();
    expect(
      said.some((t) => /^Uploading 1 file: (0|25|50|75|100)% sent\.$/.test(t)),
      said.join(" | "),
    ).toBe(true);
    expect(said.at(-1)).toBe(`Published at ${url}`);
    // Focus is on the new URL, or still on the button that started it: either way Tab reaches the copy.
    const copyUrl = page.getByRole("button", { name: "Copy the URL" });
    await tabTo(page, copyUrl);
    expect((await focusStop(page))?.ring).toBe(true);
    await page.keyboard.press("Enter");
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(url);
    await expect(statusAfter(page, "Copy the URL").textContent()).resolves.toBe("Copied to the clipboard.");
    // Space works as well as Enter on buttons.
    await tabTo(page, page.getByRole("button", { name: "Copy the claim token" }));
    await page.keyboard.press(" ");
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(
      ((await page.getByTestId("claim-token").textContent()) ?? "").trim(),
    );
    await own.close();
  });

  it("says what went wrong when a deploy is refused (an alert)", async () => {
    const page = await open("visitor", "desktop");
    await page.goto(app.baseUrl);
    await page
      .getByTestId("file-input")
      .setInputFiles({ name: "site.zip", mimeType: "application/zip", buffer: Buffer.from("not a zip") });
    const alert = page.locator(".error[role=alert]");
    await alert.waitFor();
    await expect(alert.textContent()).resolves.toContain("invalid_zip");
    await page.close();
  });

  it("mints a key, copies it and revokes it; each outcome is announced", async () => {
    const page = await open("member", "desktop");
    await page.goto(`${app.baseUrl}/dashboard/keys`);
    await page.getByRole("heading", { name: "API keys", exact: true }).waitFor();
    const said = page.getByTestId("keys-said");
    await tabTo(page, page.locator("#key-note"));
    expect((await focusStop(page))?.ring).toBe(true);
    await page.keyboard.type("keyboard key");
    await page.keyboard.press("Enter");
    const secret = page.getByTestId("new-key-secret");
    await secret.waitFor();
    const key = ((await secret.textContent()) ?? "").trim();
    await expect(said.textContent()).resolves.toBe("API key minted: copy it now, it is shown once.");
    await tabTo(page, page.getByRole("button", { name: "Copy key" }));
    await page.keyboard.press("Enter");
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(key);
    await expect(statusAfter(page, "Copy key").textContent()).resolves.toBe("Copied to the clipboard.");
    const prefix = key.slice(0, 10);
    await tabTo(page, page.getByRole("button", { name: `Revoke key ${prefix}` }));
    expect((await focusStop(page))?.ring).toBe(true);
    await page.keyboard.press("Enter");
    await page.getByTestId(`key-${prefix}`).waitFor({ state: "detached" });
    await expect(said.textContent()).resolves.toBe(`Key ${prefix} revoked.`);
    const res = await fetch(`${app.baseUrl}/drops`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(401);
    await page.close();
  });

  it("confirms a delete in a modal dialog: focus moves in and stays in, Escape closes it and focus returns; confirming deletes", async () => {
    const doomed = await deployAs("ada", site("Doomed"));
    const page = await open("member", "desktop");
    await page.goto(`${app.baseUrl}/dashboard`);
    const opener = page.getByRole("button", { name: `Delete ${doomed.slug}` });
    const dialog = page.getByTestId("confirm-dialog");
    await tabTo(page, opener);
    await page.keyboard.press("Enter");
    await expect(dialog.evaluate((d: HTMLDialogElement) => d.open && d.matches(":modal"))).resolves.toBe(true);
    expect(await hasFocus(dialog)).toBe(true);
    for (const key of ["Tab", "Tab", "Tab", "Tab", "Tab", "Shift+Tab", "Shift+Tab", "Shift+Tab"]) {
      await page.keyboard.press(key);
      expect(
        await hasFocus(dialog),
        `focus left the dialog after ${key}: ${JSON.stringify(await focusStop(page))}`,
      ).toBe(true);
      expect((await focusStop(page))?.ring).toBe(true);
    }
    await page.keyboard.press("Escape");
    await expect(dialog.evaluate((d: HTMLDialogElement) => d.open)).resolves.toBe(false);
    expect(await hasFocus(opener)).toBe(true);
    // Still there; now confirm it.
    expect((await app.request(new URL(doomed.url).host, "/")).status).toBe(200);
    await page.keyboard.press("Enter");
    await tabTo(page, dialog.getByRole("button", { name: "Confirm delete" }));
    await page.keyboard.press("Enter");
    await page.getByTestId(`drop-${doomed.slug}`).waitFor({ state: "detached" });
    await expect(page.getByTestId("drops-said").textContent()).resolves.toBe(`Deleted ${doomed.slug}.`);
    expect([404, 410]).toContain((await app.request(new URL(doomed.url).host, "/")).status);
    await page.close();
  });

  it("approves an agent's device request; focus moves to the outcome", async () => {
    const page = await open("member", "desktop");
    await page.goto(`${app.baseUrl}/device?code=${await world.deviceCode()}`);
    await tabTo(page, page.getByRole("button", { name: "Approve" }));
    expect((await focusStop(page))?.ring).toBe(true);
    await page.keyboard.press("Enter");
    const outcome = page.getByTestId("device-outcome");
    await outcome.waitFor();
    expect(await hasFocus(outcome)).toBe(true);
    await expect(outcome.textContent()).resolves.toContain("Approved");
    await page.close();
  });
});

describe("motion", () => {
  it("the bar of a deploy step moves, and stands still under prefers-reduced-motion", async () => {
    const page = await open("visitor", "desktop");
    // Hold the preflight so the "Checking files" step stays on screen.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route(/\/deploy\/preflight$/, async (route) => (await held, route.continue()));
    await page.emulateMedia({ reducedMotion: "no-preference" });
    await page.goto(app.baseUrl);
    await page.getByTestId("file-input").setInputFiles([
      { name: "index.html", mimeType: "text/html", buffer: Buffer.from(site("Motion")) },
      { name: "app.js", mimeType: "text/javascript", buffer: Buffer.from("console.log(1)") },
    ]);
    await page.getByTestId("hash-progress").waitFor();
    const running = () => page.evaluate(() => document.getAnimations().filter((a) => a.playState === "running").length);
    expect(await running()).toBeGreaterThan(0);
    await page.emulateMedia({ reducedMotion: "reduce" });
    expect(await running()).toBe(0);
    release();
    await page.getByTestId("deployed-url").waitFor({ timeout: 30_000 });
    await page.close();
  });
});
