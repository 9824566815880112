import { request } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { anonymousCaller, type Caller } from "@/lib/auth/caller";
import { findDropBySlug } from "@/lib/db/queries";
import { appendToDrop, createDrop } from "@/lib/deploy/store";
import { setAccess } from "@/lib/drops/access";
import { runCleanup } from "@/lib/drops/lifecycle";
import { claimDrop, deleteDrop } from "@/lib/drops/manage";
import { createDomain, verifyDomain } from "@/lib/domains/manage";
import { rollbackToVersion } from "@/lib/drops/versions";
import { serveRequest } from "@/lib/serve";
import { UNLOCK_PATH } from "@/lib/serve/access";
import { dropTag } from "@/lib/serve/cache";
import { accountWithKey } from "../support/accounts";
import { startPurgeRecorder, type PurgeCall } from "../support/cdn";
import { startDnsStandin, type DnsStandin } from "../support/dns-standin";
import { dropRequest, makeTestContext, TEST_SERVE_DOMAIN, type TestContext } from "../support/context";
import { startDataPlane, type RunningPlane } from "../support/plane";

// A CDN in front of a self-hosted install (issue 29): with CDN_CACHE=1 a public drop's responses
// carry CDN-Cache-Control (never past expires_at; HTML's lifetime 0 with must-revalidate, so
// every view reaches the origin where it is counted, issue 40) and Cache-Tag (the drop's tag), on its slug host
// and on its custom domains alike; protected drops
// and the app host carry neither; every change POSTs the drop's tag to CDN_PURGE_URL before it
// answers.

const PURGE_TOKEN = "purge-token-for-tests";
let t: TestContext;
let purge: Awaited<ReturnType<typeof startPurgeRecorder>>;
let plane: RunningPlane;
let dns: DnsStandin;

beforeAll(async () => {
  purge = await startPurgeRecorder();
  dns = await startDnsStandin();
  t = await makeTestContext({
    CDN_CACHE: "1",
    CDN_PURGE_URL: purge.url,
    CDN_PURGE_TOKEN: PURGE_TOKEN,
    DNS_SERVERS: dns.servers,
  });
  plane = await startDataPlane();
});
afterAll(async () => {
  await plane?.close();
  await t?.close();
  await purge?.close();
  await dns?.close();
});
afterEach(() => {
  purge.calls.splice(0);
  purge.status = 200;
  purge.delayMs = 0;
});

const enc = (s: string) => new TextEncoder().encode(s);
const files = (m: Record<string, string>) => Object.entries(m).map(([p, c]) => ({ path: p, bytes: enc(c) }));
const callerOf = (account: Caller["account"]): Caller => ({
  account,
  via: "api_key",
  credentialKey: `test:${account?.id}`,
});
const PASSWORD = "correct horse battery";

async function visit(label: string, path = "/", headers: Record<string, string> = {}) {
  const res = await serveRequest(
    t.ctx,
    dropRequest(label, path, { headers: { "x-dropsite-socket-ip": "198.51.100.30", ...headers } }),
  );
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A request on a custom domain, as the serve route receives it. */
async function visitDomain(hostname: string, path = "/") {
  const req = new Request(`http://${hostname}${path}`, {
    headers: { host: hostname, "x-dropsite-socket-ip": "198.51.100.31" },
  });
  const res = await serveRequest(t.ctx, req);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

let domainSeq = 0;
/** Points a new active custom domain (TXT record published, verified) at the account's drop. */
async function activeDomain(account: Caller["account"] & object, slug: string): Promise<string> {
  const info = await createDomain(t.ctx, account, {
    hostname: `cdn${++domainSeq}-${Date.now().toString(36)}.example.net`,
    slug,
  });
  dns.setTxt(info.verification.name, [info.verification.value]);
  expect((await verifyDomain(t.ctx, account, info.hostname)).status).toBe("active");
  return info.hostname;
}

async function tagOf(slug: string): Promise<string> {
  return dropTag((await findDropBySlug(t.ctx.db, slug))!.id);
}

const purged = (tag: string): PurgeCall => ({
  path: "POST /purge",
  headers: expect.objectContaining({
    authorization: `Bearer ${PURGE_TOKEN}`,
    "content-type": "application/json",
  }) as PurgeCall["headers"],
  body: { tags: [tag] },
});

/** A raw request to the data plane with the Host header given. */
function planeRequest(
  method: string,
  host: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ port: plane.port, host: "127.0.0.1", method, path, headers: { host, ...headers } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("CDN headers with CDN_CACHE=1", () => {
  it("a public drop's responses carry CDN-Cache-Control (as Vercel's) and its Cache-Tag, on every path that answers from its files", async () => {
    const { account } = await accountWithKey(t.ctx, "pro");
    const d = await createDrop(t.ctx, callerOf(account), {
      files: files({ "index.html": "home", "app.3f2a9c1e.js": "x()", "docs/index.html": "docs", "style.css": "p{}" }),
      ttl: null,
    });
    const tag = await tagOf(d.slug);
    // HTML is revalidated at the origin on every view (issue 40: the views are counted there).
    const page = await visit(d.slug);
    expect(page.status).toBe(200);
    expect(page.headers.get("cdn-cache-control")).toBe("max-age=0, must-revalidate");
    expect(page.headers.get("cdn-cache-control")).toBe(page.headers.get("vercel-cdn-cache-control"));
    expect(page.headers.get("cache-tag")).toBe(tag);
    const sheet = await visit(d.slug, "/style.css");
    expect(sheet.headers.get("cdn-cache-control")).toBe("max-age=86400, stale-while-revalidate=60");
    expect(sheet.headers.get("cdn-cache-control")).toBe(sheet.headers.get("vercel-cdn-cache-control"));
    expect(sheet.headers.get("cache-tag")).toBe(tag);
    const asset = await visit(d.slug, "/app.3f2a9c1e.js");
    expect(asset.headers.get("cdn-cache-control")).toBe("max-age=31536000, stale-while-revalidate=60");
    expect(asset.headers.get("cache-tag")).toBe(tag);
    const folder = await visit(d.slug, "/docs");
    expect(folder.status).toBe(308);
    expect(folder.headers.get("cache-tag")).toBe(tag);
    // A 404 of the service's own (no 404.html) is not the drop's to cache.
    const missing = await visit(d.slug, "/nope");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("cdn-cache-control")).toBeNull();
    expect(missing.headers.get("cache-tag")).toBeNull();
    // Through the listener of `npm start` too.
    const viaPlane = await planeRequest("GET", `${d.slug}.${TEST_SERVE_DOMAIN}`, "/");
    expect(viaPlane.status).toBe(200);
    expect(viaPlane.headers["cdn-cache-control"]).toBe("max-age=0, must-revalidate");
    expect(viaPlane.headers["cache-tag"]).toBe(tag);
  });

  it("never promises past expires_at: the lifetime is min(default, seconds left), and none once under a second is left", async () => {
    const d = await createDrop(t.ctx, anonymousCaller, {
      files: files({ "index.html": "brief", "app.3f2a9c1e.js": "x()", "style.css": "p{}" }),
      ttl: 3600,
    });
    expect((await visit(d.slug, "/style.css")).headers.get("cdn-cache-control")).toBe("max-age=3600");
    expect((await visit(d.slug, "/app.3f2a9c1e.js")).headers.get("cdn-cache-control")).toBe("max-age=3600");
    expect((await visit(d.slug)).headers.get("cdn-cache-control")).toBe("max-age=0, must-revalidate");
    t.clock.advance(3000);
    expect((await visit(d.slug, "/style.css")).headers.get("cdn-cache-control")).toBe("max-age=600");
    t.clock.advance(599.5);
    const last = await visit(d.slug);
    expect(last.status).toBe(200);
    expect(last.headers.get("cdn-cache-control")).toBeNull();
    expect(last.headers.get("vercel-cdn-cache-control")).toBeNull();
    expect(last.headers.get("cache-tag")).toBeNull();
    t.clock.advance(1);
    const gone = await visit(d.slug);
    expect(gone.status).toBe(410);
    expect(gone.headers.get("cdn-cache-control")).toBeNull();
  });

  it("a protected drop's responses carry none, locked or unlocked", async () => {
    const { account } = await accountWithKey(t.ctx, "pro");
    const d = await createDrop(t.ctx, callerOf(account), { files: files({ "index.html": "secret" }), ttl: null });
    await setAccess(t.ctx, account, d.slug, { mode: "password", password: PASSWORD });
    const locked = await visit(d.slug);
    expect(locked.status).toBe(401);
    const unlock = await serveRequest(
      t.ctx,
      dropRequest(d.slug, UNLOCK_PATH, {
        method: "POST",
        body: new URLSearchParams({ password: PASSWORD, path: "/" }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", "x-dropsite-socket-ip": "198.51.100.30" },
      }),
    );
    expect(unlock.status).toBe(303);
    const cookie = unlock.headers.get("set-cookie")!.split(";")[0]!;
    const open = await visit(d.slug, "/", { cookie });
    expect(open.status).toBe(200);
    expect(open.text).toBe("secret");
    for (const r of [locked, unlock, open]) {
      for (const h of ["cdn-cache-control", "cache-tag", "vercel-cdn-cache-control"])
        expect(r.headers.get(h)).toBeNull();
    }
  });

  it("a _headers rule that makes a response private or no-store removes the CDN headers", async () => {
    const { account } = await accountWithKey(t.ctx, "pro");
    const d = await createDrop(t.ctx, callerOf(account), {
      files: files({
        "index.html": "home",
        "me.html": "mine",
        _headers: "/me.html\n  Cache-Control: private, max-age=60\n",
      }),
      ttl: null,
    });
    expect((await visit(d.slug)).headers.get("cache-tag")).toBe(await tagOf(d.slug));
    const mine = await visit(d.slug, "/me.html");
    expect(mine.headers.get("cache-control")).toBe("private, max-age=60");
    for (const h of ["cdn-cache-control", "cache-tag", "vercel-cdn-cache-control"])
      expect(mine.headers.get(h)).toBeNull();
  });

  it("a custom domain's responses carry the drop's tag and the same bounds: never past expires_at, none for a protected drop", async () => {
    const { account } = await accountWithKey(t.ctx, "team");
    const open = await createDrop(t.ctx, callerOf(account), {
      files: files({ "index.html": "mine", "app.3f2a9c1e.js": "x()" }),
      ttl: null,
    });
    const openHost = await activeDomain(account, open.slug);
    const page = await visitDomain(openHost);
    expect(page.status).toBe(200);
    expect(page.text).toBe("mine");
    expect(page.headers.get("cdn-cache-control")).toBe("max-age=0, must-revalidate");
    expect(page.headers.get("cache-tag")).toBe(await tagOf(open.slug));
    expect((await visitDomain(openHost, "/app.3f2a9c1e.js")).headers.get("cdn-cache-control")).toBe(
      "max-age=31536000, stale-while-revalidate=60",
    );

    const brief = await createDrop(t.ctx, callerOf(account), {
      files: files({ "index.html": "brief", "app.3f2a9c1e.js": "x()", "style.css": "p{}" }),
      ttl: 3600,
    });
    const briefHost = await activeDomain(account, brief.slug);
    expect((await visitDomain(briefHost, "/style.css")).headers.get("cdn-cache-control")).toBe("max-age=3600");
    expect((await visitDomain(briefHost, "/app.3f2a9c1e.js")).headers.get("cdn-cache-control")).toBe("max-age=3600");
    t.clock.advance(3000);
    expect((await visitDomain(briefHost, "/style.css")).headers.get("cdn-cache-control")).toBe("max-age=600");
    t.clock.advance(599.5);
    const last = await visitDomain(briefHost);
    expect(last.status).toBe(200);
    for (const h of ["cdn-cache-control", "cache-tag", "vercel-cdn-cache-control"])
      expect(last.headers.get(h)).toBeNull();

    const secret = await createDrop(t.ctx, callerOf(account), { files: files({ "index.html": "secret" }), ttl: null });
    const secretHost = await activeDomain(account, secret.slug);
    expect((await visitDomain(secretHost)).headers.get("cache-tag")).toBe(await tagOf(secret.slug));
    await setAccess(t.ctx, account, secret.slug, { mode: "password", password: PASSWORD });
    const locked = await visitDomain(secretHost);
    expect(locked.status).toBe(401);
    for (const h of ["cdn-cache-control", "cache-tag", "vercel-cdn-cache-control"])
      expect(locked.headers.get(h)).toBeNull();
  });

  it("app-host responses carry no CDN headers", async () => {
    const res = await planeRequest("POST", "localhost:3000", "/deploy", "<p>app host</p>", {
      "content-type": "text/html",
    });
    expect(res.status).toBe(200);
    for (const h of ["cdn-cache-control", "cache-tag", "vercel-cdn-cache-control"])
      expect(res.headers[h]).toBeUndefined();
  });
});

describe("CDN_PURGE_URL", () => {
  it("receives the drop's tag for replace, append, rollback, access changes and delete, before each change answers", async () => {
    const owner = await accountWithKey(t.ctx, "pro");
    const caller = callerOf(owner.account);
    const d = await createDrop(t.ctx, caller, { files: files({ "index.html": "v1" }), ttl: null, name: "purged" });
    const tag = await tagOf(d.slug);
    // A new drop has nothing cached anywhere.
    expect(purge.calls).toEqual([]);
    // The endpoint answers slowly: the change still waits for it, so the POST is in before it returns.
    purge.delayMs = 200;
    const changes: Array<[string, () => Promise<unknown>]> = [
      ["replace", () => createDrop(t.ctx, caller, { files: files({ "index.html": "v2" }), ttl: null, name: "purged" })],
      ["append", () => appendToDrop(t.ctx, caller, d.slug, files({ "more.html": "more" }))],
      ["rollback", () => rollbackToVersion(t.ctx, owner.account, d.slug, 1)],
      ["protect", () => setAccess(t.ctx, owner.account, d.slug, { mode: "password", password: PASSWORD })],
      ["open", () => setAccess(t.ctx, owner.account, d.slug, { mode: "public" })],
      ["delete", () => deleteDrop(t.ctx, owner.account, d.slug)],
    ];
    for (const [what, change] of changes) {
      purge.calls.splice(0);
      const started = Date.now();
      await change();
      expect(purge.calls, what).toEqual([purged(tag)]);
      expect(Date.now() - started, what).toBeGreaterThanOrEqual(190);
    }
  });

  it("receives the tag of a claimed drop and of an expired drop the cleanup removes", async () => {
    const { account } = await accountWithKey(t.ctx, "free");
    const anon = await createDrop(t.ctx, anonymousCaller, { files: files({ "index.html": "anon" }), ttl: 3600 });
    await claimDrop(t.ctx, account, { slug: anon.slug, claim_token: anon.claim_token! });
    expect(purge.calls).toEqual([purged(await tagOf(anon.slug))]);

    purge.calls.splice(0);
    const soon = await createDrop(t.ctx, callerOf(account), { files: files({ "index.html": "soon" }), ttl: 60 });
    const tag = await tagOf(soon.slug);
    t.clock.advance(61);
    const result = await runCleanup(t.ctx);
    expect(result.slugs).toContain(soon.slug);
    expect(purge.calls).toContainEqual(purged(tag));
  });

  it("a purge endpoint that answers an error does not fail the change; it is logged on one line", async () => {
    const { account } = await accountWithKey(t.ctx, "pro");
    const caller = callerOf(account);
    const d = await createDrop(t.ctx, caller, {
      files: files({ "index.html": "one" }),
      ttl: null,
      name: "purge-fails",
    });
    const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      purge.status = 500;
      await createDrop(t.ctx, caller, { files: files({ "index.html": "two" }), ttl: null, name: "purge-fails" });
      expect((await visit(d.slug)).text).toBe("two");
      const lines = spy.mock.calls.map((c) => c.map(String).join(" ")).filter((l) => l.includes("CDN purge"));
      expect(lines).toEqual([`[serve] CDN purge of ${await tagOf(d.slug)} answered 500`]);
    } finally {
      spy.mockRestore();
    }
  });
});
