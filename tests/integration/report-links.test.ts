import { describe, expect, it } from "vitest";
import { anonymousCaller, type Caller } from "@/lib/auth/caller";
import { createDrop } from "@/lib/deploy/store";
import { setAccess } from "@/lib/drops/access";
import { resolveHost } from "@/lib/serve/host";
import { serveDrop } from "@/lib/serve/serve";
import { accountWithKey } from "../support/accounts";
import { suiteContext, TEST_BASE_URL, TEST_SERVE_DOMAIN } from "../support/context";

// The drop host's own pages (404, password, 451) link to the report form with the drop's address
// prefilled (`/report?url=…`, the form's own parameter); where there is no drop, the link is bare.

const t = suiteContext({}, { freshLimiter: true });
const enc = (s: string) => new TextEncoder().encode(s);

async function visit(host: string, path: string) {
  const action = resolveHost(host, { serveDomain: TEST_SERVE_DOMAIN, appHost: new URL(TEST_BASE_URL).host });
  const res = await serveDrop(t.ctx, action, { method: "GET", pathname: path, headers: new Headers({ host }) });
  return { status: res.status, text: await res.text() };
}

/** The href of the page's "Report abuse" link, decoded from the HTML. */
function reportLink(html: string): URL {
  const m = /<a href="([^"]+)">Report abuse<\/a>/.exec(html);
  expect(m, "a Report abuse link").not.toBeNull();
  return new URL(m![1]!.replace(/&#38;/g, "&"));
}

async function drop(): Promise<string> {
  const d = await createDrop(t.ctx, anonymousCaller, {
    files: [{ path: "index.html", bytes: enc("<h1>hi</h1>") }],
    ttl: 86_400,
  });
  return d.slug;
}

describe("the drop host's own pages link to the report form with the drop prefilled", () => {
  it("the 404 page of a drop names the address asked for", async () => {
    const slug = await drop();
    const host = `${slug}.${TEST_SERVE_DOMAIN}`;
    const r = await visit(host, "/no/such/page");
    expect(r.status).toBe(404);
    const link = reportLink(r.text);
    expect(`${link.origin}${link.pathname}`).toBe(`${TEST_BASE_URL}/report`);
    expect(link.searchParams.get("url")).toBe(`http://${host}/no/such/page`);
  });

  it("the password page of a protected drop names the drop", async () => {
    const owner = await accountWithKey(t.ctx, "free");
    const caller: Caller = { account: owner.account, via: "api_key", credentialKey: `test:${owner.account.id}` };
    const d = await createDrop(t.ctx, caller, {
      files: [{ path: "index.html", bytes: enc("<h1>secret</h1>") }],
      ttl: null,
    });
    await setAccess(t.ctx, owner.account, d.slug, { mode: "password", password: "correct horse battery" });
    const host = `${d.slug}.${TEST_SERVE_DOMAIN}`;
    const r = await visit(host, "/");
    expect(r.status).toBe(401);
    expect(r.text).toContain("Password required");
    expect(reportLink(r.text).searchParams.get("url")).toBe(`http://${host}/`);
  });

  it("a host with no drop links to the bare form (nothing to prefill)", async () => {
    const r = await visit(`nosuchdrop0000000000000.${TEST_SERVE_DOMAIN}`, "/");
    expect(r.status).toBe(404);
    const link = reportLink(r.text);
    expect(link.toString()).toBe(`${TEST_BASE_URL}/report`);
  });
});
