import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { freePort, startApp, type RunningApp } from "../support/app-server";
import { launchChromium, loginWithProvider, mintOnDashboard, VIEWPORTS } from "../support/browser";
import { startOidcProvider, type OidcHarness } from "../support/oidc";
import { registerSecret } from "../support/secrets";

// Writes made with the session cookie come from the app's own pages only (DESIGN "Hardening
// decisions (round 5)", Origins), against the built app (`npm run build` first): an operator's
// cookie on /admin/*, the dashboard's drop zone, the consent form and the server actions is
// refused (403 forbidden, nothing changes) when Origin is another site's, a drop host's or
// "null", or Sec-Fetch-Site says cross-site or same-site; JSON routes read application/json
// only; the same requests from the app's own origin, and with a Bearer key from anywhere, work.

let app: RunningApp;
let oidc: OidcHarness;
let browser: Browser;
let appHost = "";
let cookie = "";
let operatorKey = "";

beforeAll(async () => {
  const port = await freePort();
  oidc = await startOidcProvider({ redirectUris: [`http://localhost:${port}/api/auth/callback/oidc`] });
  app = await startApp(
    {
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: oidc.clientId,
      OIDC_CLIENT_SECRET: oidc.clientSecret,
      ADMIN_EMAILS: "ops@example.test",
    },
    { port },
  );
  appHost = `localhost:${app.port}`;
  browser = await launchChromium();
  const ctx = await browser.newContext({ viewport: VIEWPORTS.desktop });
  const page = await ctx.newPage();
  await loginWithProvider(page, app.baseUrl, "ops");
  operatorKey = await mintOnDashboard(page, app.baseUrl, "origins");
  cookie = (await ctx.cookies(app.baseUrl)).map((c) => `${c.name}=${c.value}`).join("; ");
  registerSecret("operator session cookie", cookie);
  await ctx.close();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await oidc?.close();
});

/** An anonymous drop's slug. */
async function anonDrop(): Promise<string> {
  const res = await fetch(`${app.baseUrl}/deploy`, {
    method: "POST",
    body: "<h1>origins</h1>",
    headers: { "content-type": "text/html" },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { slug: string }).slug;
}

const dropHost = (slug: string) => `http://${slug}.${app.serveDomain}`;
const served = async (slug: string) => (await app.request(`${slug}.${app.serveDomain}`, "/")).status;

/** Headers of a browser request from `origin` (null: none sent) with the operator's cookie. */
const fromPage = (origin: string | null, extra: Record<string, string> = {}) => ({
  cookie,
  ...(origin === null ? {} : { origin }),
  ...extra,
});

const codeOf = (r: { status: number; json: () => unknown }) => [r.status, (r.json() as { code?: string }).code];

describe("/admin/* with the session cookie", () => {
  it("a disable from another site, a drop host, an opaque origin or a same-site fetch is 403 forbidden and the drop still serves", async () => {
    const slug = await anonDrop();
    const refused: [string | null, Record<string, string>][] = [
      ["https://evil.example", {}],
      [dropHost(slug), {}],
      ["null", {}],
      [null, { "sec-fetch-site": "same-site" }],
      [null, { "sec-fetch-site": "cross-site" }],
      [app.baseUrl, { "sec-fetch-site": "same-site" }],
    ];
    for (const [origin, extra] of refused) {
      const r = await app.request(appHost, `/admin/drops/${slug}/disable`, {
        method: "POST",
        headers: fromPage(origin, { "content-type": "application/json", ...extra }),
        body: JSON.stringify({ reason: "spam" }),
      });
      expect(codeOf(r), `${origin} ${JSON.stringify(extra)}`).toEqual([403, "forbidden"]);
    }
    expect(await served(slug)).toBe(200);
    // A text/plain body (what a form of another site can send without a preflight) from the app's own origin: 400.
    const plain = await app.request(appHost, `/admin/drops/${slug}/disable`, {
      method: "POST",
      headers: fromPage(app.baseUrl, { "content-type": "text/plain" }),
      body: JSON.stringify({ reason: "spam" }),
    });
    expect(codeOf(plain)).toEqual([400, "invalid_request"]);
    expect(await served(slug)).toBe(200);
    // From the app's own page it works.
    const own = await app.request(appHost, `/admin/drops/${slug}/disable`, {
      method: "POST",
      headers: fromPage(app.baseUrl, { "content-type": "application/json", "sec-fetch-site": "same-origin" }),
      body: JSON.stringify({ reason: "spam" }),
    });
    expect(own.status).toBe(200);
    expect(await served(slug)).toBe(451);
  });

  it("reads are not writes: GET /admin/queue with the cookie from another site's Origin answers", async () => {
    const r = await app.request(appHost, "/admin/queue", { headers: fromPage("https://evil.example") });
    expect(r.status).toBe(200);
  });

  it("a Bearer request is not affected by Origin", async () => {
    const slug = await anonDrop();
    const r = await app.request(appHost, `/admin/drops/${slug}/disable`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${operatorKey}`,
        origin: "https://evil.example",
        "sec-fetch-site": "cross-site",
        "content-type": "application/json",
      },
      body: JSON.stringify({ reason: "spam" }),
    });
    expect(r.status).toBe(200);
    expect(await served(slug)).toBe(451);
  });
});

describe("the dashboard's routes with the session cookie", () => {
  const preflightBody = JSON.stringify({ files: { "index.html": { sha256: "a".repeat(64), size: 1 } } });

  it("preflight and upload from another site or a drop host: 403 forbidden, no drop made", async () => {
    const slug = await anonDrop();
    for (const origin of ["https://evil.example", dropHost(slug)]) {
      const pre = await app.request(appHost, "/dashboard/preflight", {
        method: "POST",
        headers: fromPage(origin, { "content-type": "application/json" }),
        body: preflightBody,
      });
      expect(codeOf(pre), origin).toEqual([403, "forbidden"]);
      const up = await app.request(appHost, "/dashboard/upload", {
        method: "POST",
        headers: fromPage(origin, { "content-type": "text/html" }),
        body: "<h1>planted</h1>",
      });
      expect(codeOf(up), origin).toEqual([403, "forbidden"]);
    }
    const drops = await fetch(`${app.baseUrl}/drops`, { headers: { authorization: `Bearer ${operatorKey}` } });
    expect(((await drops.json()) as { total: number }).total).toBe(0);
  });

  it("preflight reads application/json only; from the app's own origin it answers", async () => {
    const plain = await app.request(appHost, "/dashboard/preflight", {
      method: "POST",
      headers: fromPage(app.baseUrl, { "content-type": "text/plain" }),
      body: preflightBody,
    });
    expect(codeOf(plain)).toEqual([400, "invalid_request"]);
    const own = await app.request(appHost, "/dashboard/preflight", {
      method: "POST",
      headers: fromPage(app.baseUrl, { "content-type": "application/json" }),
      body: preflightBody,
    });
    expect(own.status).toBe(200);
  });

  it("the consent form posted from another site: 403 forbidden", async () => {
    const r = await app.request(appHost, "/dashboard/connect/some-uid/decide", {
      method: "POST",
      headers: fromPage("https://evil.example", { "content-type": "application/x-www-form-urlencoded" }),
      body: "decision=approve",
    });
    expect(codeOf(r)).toEqual([403, "forbidden"]);
    // From the app's own page the form is read (an unknown request goes back to the page).
    const own = await app.request(appHost, "/dashboard/connect/some-uid/decide", {
      method: "POST",
      headers: fromPage(app.baseUrl, { "content-type": "application/x-www-form-urlencoded" }),
      body: "decision=approve",
    });
    expect(own.status).toBe(303);
  });
});

describe("server actions with the session cookie", () => {
  /** The /admin page's block form as a browser without JavaScript posts it: its hidden fields, then ours. */
  async function blockForm(cidr: string): Promise<{ body: string; type: string }> {
    const page = await app.request(appHost, "/admin", { headers: { cookie } });
    expect(page.status).toBe(200);
    const form = /<form[^>]*>(?:(?!<\/form>)[\s\S])*name="cidr"(?:(?!<\/form>)[\s\S])*<\/form>/.exec(page.text)?.[0];
    expect(form).toBeTruthy();
    const fields = new FormData();
    for (const m of form!.matchAll(/<input[^>]*type="hidden"[^>]*>/g)) {
      const name = /name="([^"]*)"/.exec(m[0])?.[1];
      if (name) fields.append(name, /value="([^"]*)"/.exec(m[0])?.[1] ?? "");
    }
    expect([...fields.keys()].some((k) => k.startsWith("$ACTION_ID_"))).toBe(true);
    fields.append("cidr", cidr);
    fields.append("reason", "origins test");
    const encoded = new Response(fields);
    return { body: await encoded.text(), type: encoded.headers.get("content-type")! };
  }

  const blocks = async () => {
    const r = await fetch(`${app.baseUrl}/admin/blocks`, { headers: { authorization: `Bearer ${operatorKey}` } });
    return ((await r.json()) as { blocks: { cidr: string }[] }).blocks.map((b) => b.cidr);
  };

  const post = async (cidr: string, origin: string | null, extra: Record<string, string> = {}) => {
    const { body, type } = await blockForm(cidr);
    return app.request(appHost, "/admin", {
      method: "POST",
      headers: fromPage(origin, { "content-type": type, ...extra }),
      body,
    });
  };

  it("an action posted from another site's page or a drop host's changes nothing (Next's own Origin check)", async () => {
    const slug = await anonDrop();
    for (const origin of ["https://evil.example", dropHost(slug)]) {
      const r = await post("203.0.113.0/24", origin);
      expect(r.status, origin).toBeGreaterThanOrEqual(400);
    }
    expect(await blocks()).not.toContain("203.0.113.0/24");
  });

  it("an action whose Sec-Fetch-Site is same-site (Origin not sent) is refused by our check: nothing changes", async () => {
    const r = await post("203.0.113.0/24", null, { "sec-fetch-site": "same-site" });
    // The form goes back to /admin with the refusal; no block was added.
    expect(r.status).toBe(303);
    expect(String(r.headers.location)).toContain("error=");
    expect(await blocks()).not.toContain("203.0.113.0/24");
  });

  it("the same action from the app's own page adds the block", async () => {
    const r = await post("203.0.113.0/24", app.baseUrl, { "sec-fetch-site": "same-origin" });
    expect(r.status).toBe(303);
    expect(String(r.headers.location)).toContain("done=");
    expect(await blocks()).toContain("203.0.113.0/24");
  });
});
