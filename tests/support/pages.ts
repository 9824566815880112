import type { Page } from "playwright-core";

// Every page a person sees, in the state they see it, for the accessibility tests
// (tests/e2e/accessibility.test.ts runs axe on each at 1280 and 390 px and walks its focus
// stops). A new page or state is one line here: a name, who looks at it, and how to get there.

/** What the test world made before the pages are opened. */
export interface World {
  /** The app host, e.g. http://localhost:4123 */
  base: string;
  /** A drop of the logged-in account (accessible content, so its preview adds no findings of its own). */
  slug: string;
  /** Its public URL, http://<slug>.localhost:<port>/ */
  dropUrl: string;
  /** A drop of the same account with a _redirects and a _headers file (its page lists the rules). */
  rulesSlug: string;
  /** A team the logged-in account owns (Team plan). */
  team: string;
  /** A fresh invitation's URL to that team, on the app host (each call makes a new one). */
  inviteUrl(): Promise<string>;
  /** A fresh device authorisation's user code (each call starts a new one). */
  deviceCode(): Promise<string>;
  /** A fresh OAuth authorization URL of a newly registered client (opening it leads to the consent page). */
  oauthAuthorizeUrl(): Promise<string>;
  /** Deploys one small page from the landing page's drop zone and waits for the result. */
  deployFromPage(page: Page): Promise<void>;
}

export interface SeenPage {
  name: string;
  /** An anonymous visitor, or the logged-in account holder. */
  as: "visitor" | "member";
  /** Opens the page and brings it into the state to check. */
  open(page: Page, w: World): Promise<unknown>;
}

const path = (p: string) => (page: Page, w: World) => page.goto(`${w.base}${p}`);

export const PAGES: SeenPage[] = [
  { name: "landing", as: "visitor", open: path("/") },
  { name: "landing after a deploy", as: "visitor", open: async (p, w) => (await p.goto(w.base), w.deployFromPage(p)) },
  { name: "login", as: "visitor", open: path("/login") },
  { name: "docs", as: "visitor", open: path("/docs") },
  { name: "docs: contract (Markdown, tables)", as: "visitor", open: path("/docs/contract") },
  { name: "docs: webhooks (Markdown, code)", as: "visitor", open: path("/docs/webhooks") },
  { name: "docs: mcp (Markdown, deep headings)", as: "visitor", open: path("/docs/mcp") },
  {
    name: "API reference",
    as: "visitor",
    open: async (p, w) => (await p.goto(`${w.base}/docs/api`), p.waitForLoadState("networkidle")),
  },
  {
    name: "API reference, dark",
    as: "visitor",
    open: async (p, w) => (
      await p.emulateMedia({ colorScheme: "dark" }),
      await p.goto(`${w.base}/docs/api`),
      p.waitForLoadState("networkidle")
    ),
  },
  { name: "app 404 (unknown path)", as: "visitor", open: path("/no-such-page") },
  { name: "drop-host 404", as: "visitor", open: (p, w) => p.goto(new URL("/no-such-file", w.dropUrl).href) },
  { name: "drop-host 400", as: "visitor", open: (p, w) => p.goto(new URL("/%zz", w.dropUrl).href) },
  {
    name: "device approval, logged out",
    as: "visitor",
    open: async (p, w) => p.goto(`${w.base}/device?code=${await w.deviceCode()}`),
  },
  { name: "dashboard", as: "member", open: path("/dashboard") },
  { name: "dashboard, drops searched", as: "member", open: path("/dashboard?q=zzz-no-such-drop&state=live&sort=name") },
  { name: "dashboard: domains", as: "member", open: path("/dashboard/domains") },
  { name: "dashboard: webhooks", as: "member", open: path("/dashboard/webhooks") },
  { name: "dashboard: API keys and agents", as: "member", open: path("/dashboard/keys") },
  { name: "dashboard: billing and plan", as: "member", open: path("/dashboard/billing") },
  {
    name: "dashboard, key just minted",
    as: "member",
    open: async (p, w) => (
      await p.goto(`${w.base}/dashboard/keys`),
      await p.getByRole("button", { name: "Mint API key" }).click(),
      p.getByTestId("new-key-secret").waitFor()
    ),
  },
  {
    name: "dashboard, delete confirmation",
    as: "member",
    open: async (p, w) => (
      await p.goto(`${w.base}/dashboard`),
      await p.getByRole("button", { name: `Delete ${w.slug}` }).click(),
      p.getByTestId("confirm-dialog").waitFor()
    ),
  },
  {
    name: "dashboard, webhook refused",
    as: "member",
    open: async (p, w) => (
      await p.goto(`${w.base}/dashboard/webhooks`),
      await p.fill("#webhook-url", "ftp://example.com/hook"),
      await p.getByRole("button", { name: "Add webhook" }).click(),
      p.locator(".error[role=alert]").waitFor()
    ),
  },
  {
    name: "dashboard, claim refused",
    as: "member",
    open: async (p, w) => (
      await p.goto(`${w.base}/dashboard`),
      await p.fill("#claim-drop", w.slug),
      await p.fill("#claim-token", "not-the-token"),
      await p.getByRole("button", { name: "Claim drop" }).click(),
      p.locator(".error[role=alert]").waitFor()
    ),
  },
  { name: "dashboard: teams", as: "member", open: path("/dashboard/teams") },
  { name: "team page (owner)", as: "member", open: (p, w) => p.goto(`${w.base}/dashboard/teams/${w.team}`) },
  {
    name: "team page, invitation just made",
    as: "member",
    open: async (p, w) => (
      await p.goto(`${w.base}/dashboard/teams/${w.team}`),
      await p.getByRole("button", { name: "Create invitation" }).click(),
      p.getByTestId("new-invite-secret").waitFor()
    ),
  },
  { name: "team invitation (join page)", as: "member", open: async (p, w) => p.goto(await w.inviteUrl()) },
  { name: "team invitation, unknown", as: "member", open: path("/dashboard/teams/join/no-such-code") },
  { name: "drop page", as: "member", open: (p, w) => p.goto(`${w.base}/dashboard/drops/${w.slug}`) },
  {
    name: "drop page with site rules",
    as: "member",
    open: (p, w) => p.goto(`${w.base}/dashboard/drops/${w.rulesSlug}`),
  },
  {
    name: "drop page, delete confirmation",
    as: "member",
    open: async (p, w) => (
      await p.goto(`${w.base}/dashboard/drops/${w.slug}`),
      await p.getByRole("button", { name: "Delete" }).click(),
      p.getByTestId("confirm-dialog").waitFor()
    ),
  },
  { name: "app 404 (unknown drop)", as: "member", open: path("/dashboard/drops/nosuchdrop") },
  {
    name: "device approval",
    as: "member",
    open: async (p, w) => p.goto(`${w.base}/device?code=${await w.deviceCode()}`),
  },
  {
    name: "OAuth consent",
    as: "member",
    open: async (p, w) => (
      await p.goto(await w.oauthAuthorizeUrl()),
      p.getByRole("heading", { name: /^Connect Accessibility Agent\?/ }).waitFor()
    ),
  },
  { name: "OAuth consent, request gone", as: "member", open: path("/dashboard/connect/no-such-request") },
  {
    name: "device approval, approved",
    as: "member",
    open: async (p, w) => (
      await p.goto(`${w.base}/device?code=${await w.deviceCode()}`),
      await p.getByRole("button", { name: "Approve" }).click(),
      p.getByTestId("device-outcome").waitFor()
    ),
  },
];
