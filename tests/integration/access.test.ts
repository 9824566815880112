import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as accessRoute from "@/app/drops/[slug]/access/route";
import * as dropRoute from "@/app/drops/[slug]/route";
import { accessCookie, hasAccess } from "@/lib/access/cookie";
import { setAccess } from "@/lib/drops/access";
import type { Caller } from "@/lib/auth/caller";
import { anonymousCaller } from "@/lib/auth/caller";
import { findDropAccess } from "@/lib/db/access";
import { findDropBySlug } from "@/lib/db/queries";
import { createDrop } from "@/lib/deploy/store";
import { parseEnv } from "@/lib/env";
import type { ApiError } from "@/lib/errors";
import { ratePolicies } from "@/lib/ratelimit/policy";
import { serveRequest } from "@/lib/serve";
import { UNLOCK_PATH } from "@/lib/serve/access";
import { dropTag } from "@/lib/serve/cache";
import { claimVanity } from "@/lib/vanity";
import { accountWithKey, bearer } from "../support/accounts";
import { apiRequest, clearOfMinuteEdge, dropRequest, suiteContext, TEST_SERVE_DOMAIN } from "../support/context";
import { registerSecret } from "../support/secrets";
import { cdnRecorder } from "../support/cdn";

// Private drops: PUT /drops/{slug}/access, the one gate of the serve path, the unlock form and
// its cookie, the wrong-password limit, and the CDN purge when a drop becomes protected.

const t = suiteContext({}, { freshLimiter: true });

const cdn = cdnRecorder();
const { calls } = cdn;
beforeAll(() => cdn.install());
afterAll(() => cdn.uninstall());
afterEach(() => void calls.splice(0));

const MARKER = "SECRET-MARKER-7f3a9c";
const enc = (s: string) => new TextEncoder().encode(s);
const PNG = new Uint8Array([
  0x89,
  0x50,
  0x4e,
  0x47,
  0x0d,
  0x0a,
  0x1a,
  0x0a,
  ...enc(MARKER),
  ...new Uint8Array(64).fill(7),
]);
/** Every kind of file a drop host answers from, each carrying the marker. */
const SITE = [
  {
    path: "index.html",
    bytes: enc(`<!doctype html><title>home</title><link rel="stylesheet" href="/style.css"><h1>${MARKER} home</h1>`),
  },
  { path: "about.html", bytes: enc(`<p>${MARKER} about</p>`) },
  { path: "blog/index.html", bytes: enc(`<p>${MARKER} blog</p>`) },
  { path: "style.css", bytes: enc(`/* ${MARKER} */ body{color:red}`) },
  { path: "app.3f9a1c2b.js", bytes: enc(`console.log("${MARKER}")`) },
  { path: "404.html", bytes: enc(`<p>${MARKER} not found</p>`) },
  { path: "200.html", bytes: enc(`<p>${MARKER} spa</p>`) },
  { path: "img.png", bytes: PNG },
];
const PASSWORD = "correct horse battery";
registerSecret("drop password", PASSWORD);

const callerOf = (account: Caller["account"]): Caller => ({
  account,
  via: "api_key",
  credentialKey: `test:${account?.id}`,
});
const params = (slug: string) => ({ params: Promise.resolve({ slug }) });

async function put(
  apiKey: string | null,
  slug: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown>; text: string }> {
  const res = await accessRoute.PUT(
    apiRequest(`/drops/${slug}/access`, {
      method: "PUT",
      body: typeof body === "string" ? body : JSON.stringify(body),
      headers: { "content-type": "application/json", ...(apiKey ? bearer(apiKey) : {}) },
    }),
    params(slug),
  );
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as Record<string, unknown>, text };
}

async function detail(
  apiKey: string,
  slug: string,
): Promise<{ status: number; json: Record<string, unknown>; text: string }> {
  const res = await dropRoute.GET(apiRequest(`/drops/${slug}`, { headers: bearer(apiKey) }), params(slug));
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as Record<string, unknown>, text };
}

interface Visit {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  text: string;
}

async function visit(label: string, path: string, init: RequestInit & { ip?: string } = {}): Promise<Visit> {
  const headers = new Headers(init.headers);
  headers.set("x-dropsite-socket-ip", init.ip ?? "198.51.100.20");
  const res = await serveRequest(t.ctx, dropRequest(label, path, { ...init, headers }));
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: new TextDecoder().decode(bytes) };
}

function unlockPost(
  label: string,
  form: Record<string, string> | string,
  init: RequestInit & { ip?: string } = {},
): Promise<Visit> {
  const body = typeof form === "string" ? form : new URLSearchParams(form).toString();
  return visit(label, UNLOCK_PATH, {
    method: "POST",
    body,
    ...init,
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(init.headers as Record<string, string> | undefined),
    },
  });
}

/** The cookie pair ("name=value") a 303 sets. */
function cookieOf(v: Visit): string {
  const set = v.headers.get("set-cookie");
  expect(set).toBeTruthy();
  return set!.split(";")[0]!;
}

async function protectedSite(plan: "free" | "pro" | "team" = "free") {
  const owner = await accountWithKey(t.ctx, plan);
  const d = await createDrop(t.ctx, callerOf(owner.account), { files: SITE, ttl: null });
  expect((await put(owner.apiKey, d.slug, { mode: "password", password: PASSWORD })).status).toBe(200);
  const row = (await findDropBySlug(t.ctx.db, d.slug))!;
  return { owner, slug: d.slug, dropId: row.id };
}

function expectLocked(v: Visit, what: string): void {
  expect(v.status, what).toBe(401);
  expect(v.text, what).not.toContain(MARKER);
  expect(Buffer.from(v.bytes).includes(Buffer.from(MARKER)), what).toBe(false);
  const all = [...v.headers].map(([k, val]) => `${k}: ${val}`).join("\n");
  expect(all, what).not.toContain(MARKER);
  expect(v.headers.get("cache-control"), what).toBe("private, no-store");
  expect(v.headers.get("x-robots-tag"), what).toBe("noindex");
  for (const h of [
    "etag",
    "content-range",
    "location",
    "accept-ranges",
    "vercel-cdn-cache-control",
    "cdn-cache-control",
    "cache-tag",
    "set-cookie",
    "last-modified",
  ]) {
    expect(v.headers.get(h), `${what}: ${h}`).toBeNull();
  }
  // Its own length only (the lock page's), never a file's.
  if (v.bytes.byteLength > 0) expect(v.headers.get("content-length"), what).toBe(String(v.bytes.byteLength));
}

describe("PUT /drops/{slug}/access and GET /drops/{slug}", () => {
  it("protects and opens a drop on every plan, reports the mode, and never returns or stores the password", async () => {
    for (const plan of ["free", "pro", "team"] as const) {
      const owner = await accountWithKey(t.ctx, plan);
      const d = await createDrop(t.ctx, callerOf(owner.account), { files: SITE, ttl: null });
      expect((await detail(owner.apiKey, d.slug)).json.access).toBe("public");
      const set = await put(owner.apiKey, d.slug, { mode: "password", password: PASSWORD });
      expect(set.status).toBe(200);
      expect(set.json).toEqual({ slug: d.slug, mode: "password" });
      const got = await detail(owner.apiKey, d.slug);
      expect(got.status).toBe(200);
      expect(got.json).toMatchObject({ slug: d.slug, access: "password", file_count: SITE.length });
      expect(got.text).not.toContain(PASSWORD);
      expect(got.text).not.toContain("scrypt");
      const row = (await findDropBySlug(t.ctx.db, d.slug))!;
      expect(row.accessPasswordHash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
      expect(row.accessPasswordHash).not.toContain(PASSWORD);
      const open = await put(owner.apiKey, d.slug, { mode: "public" });
      expect(open.json).toEqual({ slug: d.slug, mode: "public" });
      expect((await detail(owner.apiKey, d.slug)).json.access).toBe("public");
      expect((await findDropBySlug(t.ctx.db, d.slug))!.accessPasswordHash).toBeNull();
    }
  });

  it("the same password twice gives two different salted hashes", async () => {
    const { owner, slug } = await protectedSite();
    const first = (await findDropBySlug(t.ctx.db, slug))!.accessPasswordHash;
    await put(owner.apiKey, slug, { mode: "password", password: PASSWORD });
    const second = (await findDropBySlug(t.ctx.db, slug))!.accessPasswordHash;
    expect(second).not.toBe(first);
  });

  it("passwords of exactly 8 and 128 characters are accepted; 7 and 129 are not", async () => {
    const owner = await accountWithKey(t.ctx);
    const d = await createDrop(t.ctx, callerOf(owner.account), { files: SITE, ttl: null });
    expect((await put(owner.apiKey, d.slug, { mode: "password", password: "a".repeat(8) })).status).toBe(200);
    expect((await put(owner.apiKey, d.slug, { mode: "password", password: "é".repeat(128) })).status).toBe(200);
    for (const password of ["a".repeat(7), "a".repeat(129), "😀".repeat(129)]) {
      const r = await put(owner.apiKey, d.slug, { mode: "password", password });
      expect(r.status).toBe(400);
      expect(r.json.code).toBe("invalid_request");
      expect(r.text).not.toContain(password);
    }
  });

  it("bad input, another account's drop, an anonymous drop and no credential change nothing", async () => {
    const { owner, slug, dropId } = await protectedSite();
    const unlocked = cookieOf(await unlockPost(slug, { password: PASSWORD, path: "/" }));
    const before = (await findDropAccess(t.ctx.db, dropId))!;
    const bad: unknown[] = [
      { mode: "password" },
      { mode: "password", password: 12345678 },
      { mode: "password", password: null },
      { mode: "password", password: "short" },
      { mode: "secret", password: PASSWORD },
      { mode: 1 },
      { mode: "public", password: PASSWORD },
      { mode: "password", password: PASSWORD, extra: true },
      {},
      [],
      "not json",
      "",
      "null",
    ];
    for (const body of bad) {
      const r = await put(owner.apiKey, slug, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.code).toBe("invalid_request");
    }
    const other = await accountWithKey(t.ctx, "team");
    const r = await put(other.apiKey, slug, { mode: "public" });
    expect(r.status).toBe(404);
    expect(r.json.code).toBe("not_found");
    expect((await detail(other.apiKey, slug)).status).toBe(404);
    const anon = await createDrop(t.ctx, anonymousCaller, { files: SITE, ttl: 3600 });
    for (const who of [owner, other])
      expect((await put(who.apiKey, anon.slug, { mode: "password", password: PASSWORD })).status).toBe(404);
    expect((await findDropBySlug(t.ctx.db, anon.slug))!.accessMode).toBe("public");
    expect((await put(null, slug, { mode: "public" })).status).toBe(401);
    expect((await put(owner.apiKey, "not-a-slug!", { mode: "public" })).status).toBe(404);
    // Nothing changed: same mode, hash and policy version; the earlier cookie still unlocks.
    expect(await findDropAccess(t.ctx.db, dropId)).toEqual(before);
    expect((await visit(slug, "/", { headers: { cookie: unlocked } })).status).toBe(200);
    // The service refuses an anonymous drop for any account too.
    const err = await setAccess(t.ctx, owner.account, anon.slug, { mode: "public" }).catch((e: unknown) => e);
    expect((err as ApiError).code).toBe("not_found");
  });

  it("an oversized JSON body is refused and changes nothing", async () => {
    const { owner, slug, dropId } = await protectedSite();
    const before = await findDropAccess(t.ctx.db, dropId);
    const r = await put(
      owner.apiKey,
      slug,
      JSON.stringify({ mode: "password", password: PASSWORD, pad: "x".repeat(70 * 1024) }),
    );
    expect(r.status).toBe(413);
    expect(await findDropAccess(t.ctx.db, dropId)).toEqual(before);
  });
});

describe("the gate: a protected drop answers every path kind with 401 and nothing of the drop", () => {
  it("pages, assets, hashed assets, clean URLs, folders, 404 page, SPA fallback, HEAD, ranges, conditional requests", async () => {
    const { slug } = await protectedSite();
    const row = (await findDropBySlug(t.ctx.db, slug))!;
    const files = await t.ctx.db.query.files.findMany({ where: (f, { eq }) => eq(f.dropId, row.id) });
    const sha = (p: string) => files.find((f) => f.path === p)!.sha256;
    calls.splice(0);
    const cases: [string, string, RequestInit][] = [
      ["root", "/", {}],
      ["index by name", "/index.html", {}],
      ["clean URL", "/about", {}],
      ["folder redirect", "/blog", {}],
      ["folder", "/blog/", {}],
      ["stylesheet", "/style.css", {}],
      ["hashed asset", "/app.3f9a1c2b.js", {}],
      ["image", "/img.png", {}],
      ["missing asset (404.html)", "/missing.png", {}],
      ["SPA route (200.html)", "/app/route", {}],
      ["the 404 page by name", "/404.html", {}],
      ["HEAD", "/", { method: "HEAD" }],
      ["range", "/img.png", { headers: { range: "bytes=0-20" } }],
      ["unsatisfiable range", "/img.png", { headers: { range: "bytes=99999-" } }],
      ["If-None-Match", "/index.html", { headers: { "if-none-match": `"${sha("index.html")}"` } }],
      ["If-None-Match *", "/style.css", { headers: { "if-none-match": "*" } }],
      ["compressed", "/style.css", { headers: { "accept-encoding": "br, gzip" } }],
      ["query", "/about?x=1", {}],
      ["GET of the unlock path", UNLOCK_PATH, {}],
    ];
    for (const [what, path, init] of cases) {
      const v = await visit(slug, path, init);
      expectLocked(v, what);
      if (init.method !== "HEAD") {
        expect(v.text, what).toContain('<form method="post" action="/.well-known/dropsite/unlock">');
      }
    }
    // No locked answer is tagged for the CDN.
    expect(calls.filter((c) => c[0] === "addCacheTag")).toEqual([]);
  });

  it("the lock page is a small accessible form that works without JavaScript", async () => {
    const { slug } = await protectedSite();
    const v = await visit(slug, "/blog/?page=2");
    expect(v.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(v.text).toMatch(/^<!doctype html><html lang="en">/);
    expect(v.text).toContain("<title>Password required</title>");
    expect(v.text).toContain('<meta name="viewport" content="width=device-width,initial-scale=1">');
    expect(v.text).toMatch(/<main>.*<h1>Password required<\/h1>.*<\/main>/s);
    expect(v.text).toContain(
      '<label for="password">Password</label><input id="password" name="password" type="password"',
    );
    expect(v.text).toContain('<input type="hidden" name="path" value="/blog/?page=2">');
    expect(v.text).not.toContain("<script");
    expect(v.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(v.bytes.byteLength).toBeLessThan(4096);
  });

  it("a named drop is locked on its vanity host too, and the drop's slug still resolves (401, not 404)", async () => {
    const owner = await accountWithKey(t.ctx, "team");
    await claimVanity(t.ctx, owner.account, { sub: `acme${Date.now() % 100000}` });
    const account = (await t.ctx.db.query.accounts.findFirst({ where: (a, { eq }) => eq(a.id, owner.account.id) }))!;
    const d = await createDrop(t.ctx, callerOf(account), { files: SITE, ttl: null, name: "site" });
    const vanity = `${account.vanitySub}--site`;
    expect((await visit(vanity, "/")).status).toBe(200);
    await put(owner.apiKey, d.slug, { mode: "password", password: PASSWORD });
    for (const path of ["/", "/style.css", "/blog", "/nope"]) expectLocked(await visit(vanity, path), `vanity ${path}`);
    // The cookie is host-only: unlocking on the vanity host unlocks that host.
    const ok = await unlockPost(vanity, { password: PASSWORD, path: "/about" });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe("/about");
    expect((await visit(vanity, "/about", { headers: { cookie: cookieOf(ok) } })).text).toContain(MARKER);
    expect((await visit("nosuchdropanywhere", "/")).status).toBe(404);
  });

  it("a public drop is served as before: tagged for the CDN, shared caching", async () => {
    const owner = await accountWithKey(t.ctx);
    const d = await createDrop(t.ctx, callerOf(owner.account), { files: SITE, ttl: null });
    calls.splice(0);
    const v = await visit(d.slug, "/app.3f9a1c2b.js");
    expect(v.status).toBe(200);
    expect(v.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(v.headers.get("vercel-cdn-cache-control")).toBeTruthy();
    expect(calls.map((c) => c[0])).toContain("addCacheTag");
  });
});

describe("unlocking", () => {
  it("the right password answers 303 back to the page with a host-only, HttpOnly, SameSite=Lax cookie; the drop then serves privately", async () => {
    const { slug, dropId } = await protectedSite();
    const ok = await unlockPost(slug, { password: PASSWORD, path: "/about?x=1" });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe("/about?x=1");
    expect(ok.headers.get("cache-control")).toBe("private, no-store");
    const set = ok.headers.get("set-cookie")!;
    expect(set).toMatch(/^dropsite-access=\d+\.\d+\.[A-Za-z0-9_-]{43}; /);
    expect(set).toContain("; Path=/");
    expect(set).toContain("; HttpOnly");
    expect(set).toContain("; SameSite=Lax");
    expect(set).not.toMatch(/domain=/i);
    expect(set).not.toMatch(/secure/i);
    expect(set).not.toContain(PASSWORD);
    const cookie = cookieOf(ok);
    calls.splice(0);
    const page = await visit(slug, "/about?x=1", { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(MARKER);
    for (const [path, init] of [
      ["/", {}],
      ["/style.css", {}],
      ["/app.3f9a1c2b.js", {}],
      ["/img.png", { headers: { range: "bytes=0-3" } }],
      ["/missing.png", {}],
      ["/nothing/here.txt", {}],
      ["/blog", {}],
    ] as [string, RequestInit][]) {
      const v = await visit(slug, path, { ...init, headers: { ...(init.headers as Record<string, string>), cookie } });
      expect(v.status, path).toBeLessThan(500);
      expect(v.status, path).not.toBe(401);
      expect(v.headers.get("cache-control"), path).toMatch(/^private/);
      expect(v.headers.get("cache-control"), path).not.toContain("immutable");
      expect(v.headers.get("vercel-cdn-cache-control"), path).toBeNull();
      expect(v.headers.get("x-robots-tag"), path).toBe("noindex");
    }
    expect((await visit(slug, "/img.png", { headers: { range: "bytes=0-3", cookie } })).status).toBe(206);
    expect((await visit(slug, "/blog", { headers: { cookie } })).headers.get("location")).toBe("/blog/");
    // Unlocked answers are never tagged for the CDN either.
    expect(calls.filter((c) => c[0] === "addCacheTag")).toEqual([]);
    expect(
      hasAccess(
        t.ctx.env,
        cookie,
        dropId,
        (await findDropAccess(t.ctx.db, dropId))!.accessPolicyVersion,
        t.ctx.now(),
        `${slug}.${TEST_SERVE_DOMAIN}`,
      ),
    ).toBe(true);
  });

  it("the 303 never leaves the drop host, whatever the form, next or Referer say", async () => {
    const { slug } = await protectedSite();
    const targets: [string, string][] = [
      ["//evil.example/x", "/"],
      ["https://evil.example/", "/"],
      ["/\\evil.example", "/"],
      ["\\\\evil.example", "/"],
      ["javascript:alert(1)", "/"],
      ["/%2F%2Fevil.example", "/%2F%2Fevil.example"],
      ["/ok\r\nSet-Cookie: x=1", "/"],
      [UNLOCK_PATH, "/"],
      ["", "/"],
      ["/deep/page.html?q=1#frag", "/deep/page.html?q=1"],
    ];
    for (const [path, expected] of targets) {
      const r = await unlockPost(
        slug,
        { password: PASSWORD, path, next: "https://evil.example/" },
        { headers: { referer: "https://evil.example/" } },
      );
      expect(r.status, path).toBe(303);
      expect(r.headers.get("location"), path).toBe(expected);
    }
  });

  it("a wrong password answers the form again with 401 and no cookie; so do a wrong type and a cross-site post", async () => {
    const { slug } = await protectedSite();
    const wrong = await unlockPost(slug, { password: "not the password", path: "/" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expect(wrong.text).toContain("Wrong password");
    expect(wrong.text).not.toContain(MARKER);
    expect(wrong.text).not.toContain("not the password");
    expect((await unlockPost(slug, { path: "/" })).status).toBe(401);
    const json = await visit(slug, UNLOCK_PATH, {
      method: "POST",
      body: JSON.stringify({ password: PASSWORD }),
      headers: { "content-type": "application/json" },
    });
    expect(json.status).toBe(400);
    expect(json.headers.get("set-cookie")).toBeNull();
    const cross = await unlockPost(
      slug,
      { password: PASSWORD, path: "/" },
      { headers: { origin: "https://evil.example" } },
    );
    expect(cross.status).toBe(403);
    expect(cross.headers.get("set-cookie")).toBeNull();
    const same = await unlockPost(
      slug,
      { password: PASSWORD, path: "/" },
      { headers: { origin: `http://${slug}.${TEST_SERVE_DOMAIN}` } },
    );
    expect(same.status).toBe(303);
    // Other methods on the unlock path are not a way in either.
    expect((await visit(slug, UNLOCK_PATH, { method: "PUT", body: `password=${PASSWORD}` })).status).toBe(405);
  });

  it("an oversized unlock body answers 413 with no cookie, declared or not", async () => {
    const { slug } = await protectedSite();
    const big = new URLSearchParams({ password: PASSWORD, path: `/${"a".repeat(5000)}` }).toString();
    const declared = await unlockPost(slug, big);
    expect(declared.status).toBe(413);
    expect(declared.headers.get("set-cookie")).toBeNull();
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc(big));
        c.close();
      },
    });
    const undeclared = await visit(slug, UNLOCK_PATH, {
      method: "POST",
      body: stream,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      duplex: "half",
    } as RequestInit);
    expect(undeclared.status).toBe(413);
    expect(undeclared.headers.get("set-cookie")).toBeNull();
  });

  it("forged, truncated, tampered, expired and other drops' cookies do not unlock", async () => {
    const a = await protectedSite();
    const b = await protectedSite();
    const cookieA = cookieOf(await unlockPost(a.slug, { password: PASSWORD, path: "/" }));
    const [name, value] = cookieA.split("=") as [string, string];
    const [policy, expires, sig] = value.split(".") as [string, string, string];
    const flip = (s: string) => s.slice(0, -1) + (s.endsWith("A") ? "B" : "A");
    const bad = [
      `${name}=${policy}.${expires}.${"A".repeat(43)}`,
      `${name}=${value.slice(0, -5)}`,
      `${name}=${policy}.${expires}`,
      `${name}=${policy}.${Number(expires) + 3600}.${sig}`,
      `${name}=${Number(policy) + 1}.${expires}.${sig}`,
      `${name}=${policy}.${expires}.${flip(sig)}`,
      `${name}=`,
      `other=${value}`,
    ];
    for (const cookie of bad) expectLocked(await visit(a.slug, "/", { headers: { cookie } }), cookie);
    // A's cookie on B's host (as if a browser sent it there) opens nothing.
    expectLocked(await visit(b.slug, "/", { headers: { cookie: cookieA } }), "another drop's cookie");
    // A cookie signed for A with another server secret does not work either.
    const otherSecret = parseEnv({
      BASE_URL: "http://localhost:3000",
      NEXTAUTH_SECRET: "a-different-server-secret-value",
    });
    const foreign = accessCookie(
      otherSecret,
      a.dropId,
      Number(policy),
      t.ctx.now(),
      `${a.slug}.${TEST_SERVE_DOMAIN}`,
    ).split(";")[0]!;
    expectLocked(await visit(a.slug, "/", { headers: { cookie: foreign } }), "other secret");
    // Expired: past its lifetime the same cookie opens nothing.
    expect((await visit(a.slug, "/", { headers: { cookie: cookieA } })).status).toBe(200);
    t.clock.advance(8 * 24 * 3600);
    expectLocked(await visit(a.slug, "/", { headers: { cookie: cookieA } }), "expired");
    // The right one among look-alikes still works (a drop's page may set cookies of its own).
    const fresh = cookieOf(await unlockPost(a.slug, { password: PASSWORD, path: "/" }));
    expect((await visit(a.slug, "/", { headers: { cookie: `${name}=junk; theme=dark; ${fresh}` } })).status).toBe(200);
  });

  it("over https the cookie is Secure and __Host- prefixed", () => {
    const e = parseEnv({
      BASE_URL: "https://app.example.com",
      SERVE_DOMAIN: "drops.example.net",
      NEXTAUTH_SECRET: "production-secret-for-the-test",
    });
    const set = accessCookie(e, "drop-id", 3, Date.now(), "x.drops.example.net");
    expect(set).toMatch(
      /^__Host-dropsite-access=3\.\d+\.[A-Za-z0-9_-]{43}; Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax; Secure$/,
    );
  });
});

describe("a change of password or mode revokes every cookie", () => {
  it("a new password, public and back, and the same password again each invalidate earlier cookies", async () => {
    const { owner, slug, dropId } = await protectedSite();
    const versions: number[] = [(await findDropAccess(t.ctx.db, dropId))!.accessPolicyVersion];
    const unlockNow = async (password = PASSWORD) => cookieOf(await unlockPost(slug, { password, path: "/" }));

    const first = await unlockNow();
    await put(owner.apiKey, slug, { mode: "password", password: "another password 2" });
    versions.push((await findDropAccess(t.ctx.db, dropId))!.accessPolicyVersion);
    expectLocked(await visit(slug, "/", { headers: { cookie: first } }), "after a new password");
    expect((await unlockPost(slug, { password: PASSWORD, path: "/" })).status).toBe(401);

    const second = await unlockNow("another password 2");
    await put(owner.apiKey, slug, { mode: "password", password: "another password 2" });
    versions.push((await findDropAccess(t.ctx.db, dropId))!.accessPolicyVersion);
    expectLocked(await visit(slug, "/", { headers: { cookie: second } }), "after the same password again");

    const third = await unlockNow("another password 2");
    await put(owner.apiKey, slug, { mode: "public" });
    versions.push((await findDropAccess(t.ctx.db, dropId))!.accessPolicyVersion);
    expect((await visit(slug, "/")).text).toContain(MARKER);
    await put(owner.apiKey, slug, { mode: "password", password: "another password 2" });
    versions.push((await findDropAccess(t.ctx.db, dropId))!.accessPolicyVersion);
    expectLocked(
      await visit(slug, "/", { headers: { cookie: third } }),
      "after public and back with the same password",
    );
    // The version only ever rises.
    expect([...versions].sort((x, y) => x - y)).toEqual(versions);
    expect(new Set(versions).size).toBe(versions.length);
  });

  it("switching to password purges the drop's cache tag before answering; opening it marks it stale", async () => {
    const owner = await accountWithKey(t.ctx);
    const d = await createDrop(t.ctx, callerOf(owner.account), { files: SITE, ttl: null });
    const tag = dropTag((await findDropBySlug(t.ctx.db, d.slug))!.id);
    expect((await visit(d.slug, "/")).status).toBe(200);
    calls.splice(0);
    expect((await put(owner.apiKey, d.slug, { mode: "password", password: PASSWORD })).status).toBe(200);
    expect(calls).toEqual([["dangerouslyDeleteByTag", tag]]);
    // The same process sees the change at once (its cached manifest was forgotten).
    expectLocked(await visit(d.slug, "/"), "right after protecting");
    calls.splice(0);
    await put(owner.apiKey, d.slug, { mode: "public" });
    expect(calls).toEqual([["invalidateByTag", tag]]);
    expect((await visit(d.slug, "/")).status).toBe(200);
  });

  it("refused changes send no purge", async () => {
    const owner = await accountWithKey(t.ctx);
    const d = await createDrop(t.ctx, callerOf(owner.account), { files: SITE, ttl: null });
    calls.splice(0);
    expect((await put(owner.apiKey, d.slug, { mode: "password", password: "short" })).status).toBe(400);
    expect(calls).toEqual([]);
  });
});

describe("wrong passwords are limited per drop and client address", () => {
  it("the 11th wrong try within a minute answers 429 with Retry-After; other addresses and other drops are unaffected", async () => {
    await clearOfMinuteEdge(t);
    const max = ratePolicies(t.ctx.env).unlock.max;
    expect(max).toBe(10);
    const a = await protectedSite();
    const b = await protectedSite();
    const ip = "198.51.100.77";
    for (let i = 0; i < max; i++)
      expect((await unlockPost(a.slug, { password: `wrong password ${i}`, path: "/" }, { ip })).status).toBe(401);
    const limited = await unlockPost(a.slug, { password: "wrong password 11", path: "/" }, { ip });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(limited.headers.get("set-cookie")).toBeNull();
    expect(limited.text).not.toContain(MARKER);
    expect(limited.headers.get("cache-control")).toBe("private, no-store");
    // Even the right password waits: the limit is what stops guessing.
    expect((await unlockPost(a.slug, { password: PASSWORD, path: "/" }, { ip })).status).toBe(429);
    // Another address on the same drop, and the same address on another drop, go on.
    expect((await unlockPost(a.slug, { password: PASSWORD, path: "/" }, { ip: "198.51.100.78" })).status).toBe(303);
    expect((await unlockPost(b.slug, { password: "wrong again", path: "/" }, { ip })).status).toBe(401);
    expect((await unlockPost(b.slug, { password: PASSWORD, path: "/" }, { ip })).status).toBe(303);
    // Right passwords do not count against the budget.
    for (let i = 0; i < max + 2; i++)
      expect((await unlockPost(b.slug, { password: PASSWORD, path: "/" }, { ip: "198.51.100.79" })).status).toBe(303);
  });

  it("after the window the address may try again", async () => {
    if (t.hosted) return; // the Upstash stand-in counts real time; the window is covered above
    const a = await protectedSite();
    const ip = "198.51.100.90";
    for (let i = 0; i <= 10; i++) await unlockPost(a.slug, { password: `wrong password ${i}`, path: "/" }, { ip });
    expect((await unlockPost(a.slug, { password: PASSWORD, path: "/" }, { ip })).status).toBe(429);
    t.clock.advance(61);
    expect((await unlockPost(a.slug, { password: PASSWORD, path: "/" }, { ip })).status).toBe(303);
  });
});

describe("MCP set_access and get_drop", () => {
  it("protects and opens a drop, never echoing the password; get_drop reports access; bad arguments and other accounts change nothing", async () => {
    const { connectInProcess } = await import("../support/mcp");
    const owner = await accountWithKey(t.ctx);
    const other = await accountWithKey(t.ctx);
    const d = await createDrop(t.ctx, callerOf(owner.account), { files: SITE, ttl: null });
    const client = await connectInProcess("modern", { ip: "203.0.113.50", credential: owner.apiKey });
    const call = async (args: Record<string, unknown>, c = client) =>
      (await c.callTool({ name: "set_access", arguments: args })) as {
        isError?: boolean;
        structuredContent?: Record<string, unknown>;
        content: { text?: string }[];
      };
    const set = await call({ slug: d.slug, mode: "password", password: PASSWORD });
    expect(set.isError).toBe(false);
    expect(set.structuredContent).toEqual({ slug: d.slug, mode: "password" });
    expect(JSON.stringify(set)).not.toContain(PASSWORD);
    const got = (await client.callTool({ name: "get_drop", arguments: { slug: d.slug } })) as {
      structuredContent?: Record<string, unknown>;
      content: { text?: string }[];
    };
    expect(got.structuredContent?.access).toBe("password");
    expect(got.content[0]?.text).toContain("access password");
    expectLocked(await visit(d.slug, "/"), "after set_access");
    const row = await findDropAccess(t.ctx.db, (await findDropBySlug(t.ctx.db, d.slug))!.id);
    for (const args of [
      { slug: d.slug, mode: "password" },
      { slug: d.slug, mode: "password", password: "short" },
      { slug: d.slug, mode: "password", password: 123456789 },
      { slug: d.slug, mode: "open" },
      { slug: d.slug, mode: "public", password: PASSWORD },
    ]) {
      const r = await call(args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.content[0]?.text).toContain("invalid_request");
      expect(r.content[0]?.text).not.toContain(PASSWORD);
    }
    const otherClient = await connectInProcess("modern", { ip: "203.0.113.51", credential: other.apiKey });
    const foreign = await call({ slug: d.slug, mode: "public" }, otherClient);
    expect(foreign.isError).toBe(true);
    expect(foreign.content[0]?.text).toContain("not_found");
    expect(await findDropAccess(t.ctx.db, row!.id)).toEqual(row);
    const open = await call({ slug: d.slug, mode: "public" });
    expect(open.structuredContent).toEqual({ slug: d.slug, mode: "public" });
    expect((await visit(d.slug, "/")).text).toContain(MARKER);
    await client.close();
    await otherClient.close();
  });
});
