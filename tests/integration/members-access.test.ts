import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import * as accessRoute from "@/app/drops/[slug]/access/route";
import { accessCookieName } from "@/lib/access/cookie";
import { findDropAccess } from "@/lib/db/access";
import { findDropBySlug } from "@/lib/db/queries";
import { memberAccessTokens, teams } from "@/lib/db/schema";
import { createDrop } from "@/lib/deploy/store";
import { setAccess } from "@/lib/drops/access";
import type { AccountRow } from "@/lib/db/schema";
import { serveRequest } from "@/lib/serve";
import { UNLOCK_PATH } from "@/lib/serve/access";
import { actAsTeam } from "@/lib/teams/acting";
import { membersEntry } from "@/lib/teams/drop-access";
import { claimVanity } from "@/lib/vanity";
import { bearer } from "../support/accounts";
import { apiRequest, dropRequest, suiteContext, TEST_BASE_URL, TEST_SERVE_DOMAIN } from "../support/context";
import { teamCall, teamWith, verifiedPerson, type Person } from "../support/teams";

// Members-only drops (DESIGN "Teams"): the drop host sends a visitor without the drop's cookie
// to BASE_URL/access/members (302, no-store); there a logged-in member of the owning team gets a
// one-time, 60-second, drop-bound token for the drop host's unlock path, which sets the cookie a
// password sets; a person who is not a member gets 403 and nothing of the drop; removing a
// member or changing a role signs every visitor out. `members` on a person's own drop is refused.

const t = suiteContext({}, { freshLimiter: true });

const MARKER = "MEMBERS-ONLY-MARKER-5d1e";
const enc = (s: string) => new TextEncoder().encode(s);
const SITE = [
  { path: "index.html", bytes: enc(`<!doctype html><title>home</title><h1>${MARKER} home</h1>`) },
  { path: "about.html", bytes: enc(`<p>${MARKER} about</p>`) },
  { path: "style.css", bytes: enc(`/* ${MARKER} */ body{color:red}`) },
  { path: "404.html", bytes: enc(`<p>${MARKER} not found</p>`) },
];

interface Visit {
  status: number;
  headers: Headers;
  text: string;
}

async function visit(slug: string, path: string, init: RequestInit = {}): Promise<Visit> {
  const headers = new Headers(init.headers);
  headers.set("x-dropsite-socket-ip", "198.51.100.30");
  const res = await serveRequest(t.ctx, dropRequest(slug, path, { ...init, headers }));
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function entry(person: AccountRow | null, query: Record<string, string>): Promise<Visit> {
  const url = new URL(`/access/members?${new URLSearchParams(query).toString()}`, TEST_BASE_URL);
  const res = await membersEntry(t.ctx, person, url);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function expectNothingOfTheDrop(v: Visit, what: string): void {
  expect(v.text, what).not.toContain(MARKER);
  expect([...v.headers].map(([k, val]) => `${k}: ${val}`).join("\n"), what).not.toContain(MARKER);
  expect(v.headers.get("etag"), what).toBeNull();
}

async function teamRow(slug: string) {
  const [row] = await t.ctx.db.select().from(teams).where(eq(teams.slug, slug));
  return row!;
}

/** A team (owner plus a member and a viewer) with a members-only drop deployed as the team. */
async function membersSite() {
  const { slug: teamSlug, owner, people } = await teamWith(t.ctx, ["member", "viewer"]);
  const team = await teamRow(teamSlug);
  const acting = await actAsTeam(
    t.ctx,
    { account: owner.account, via: "api_key", credentialKey: `key:${owner.keyId}` },
    team,
  );
  const d = await createDrop(t.ctx, acting!, { files: SITE, ttl: null });
  expect(await setAccess(t.ctx, acting!.account, d.slug, { mode: "members" })).toEqual({
    slug: d.slug,
    mode: "members",
  });
  const drop = (await findDropBySlug(t.ctx.db, d.slug))!;
  return {
    teamSlug,
    team,
    teamAccount: acting!.account,
    owner,
    member: people[0]!,
    viewer: people[1]!,
    slug: d.slug,
    dropId: drop.id,
  };
}

/** The token and return path of a member's 302 to the drop host's unlock path. */
function unlockTarget(v: Visit, slug: string): { token: string; returnTo: string; path: string } {
  expect(v.status).toBe(302);
  expect(v.headers.get("cache-control")).toContain("no-store");
  const to = new URL(v.headers.get("location")!);
  expect(to.origin).toBe(`http://${slug}.${TEST_SERVE_DOMAIN}`);
  expect(to.pathname).toBe(UNLOCK_PATH);
  const token = to.searchParams.get("token")!;
  expect(token).toMatch(/^mt_[A-Za-z0-9_-]{43}$/);
  return { token, returnTo: to.searchParams.get("return")!, path: to.pathname + to.search };
}

/** A fresh token for `person` on the drop, returning to `ret`. */
async function tokenFor(
  person: Person,
  slug: string,
  ret = "/",
): Promise<{ token: string; returnTo: string; path: string }> {
  return unlockTarget(await entry(person.account, { drop: slug, return: ret }), slug);
}

/** The cookie pair ("name=value") an unlock sets. */
function cookieOf(v: Visit): string {
  const set = v.headers.get("set-cookie");
  expect(set).toBeTruthy();
  return set!.split(";")[0]!;
}

async function tokenRows(): Promise<number> {
  return (await t.ctx.db.select().from(memberAccessTokens)).length;
}

describe("setting members-only access", () => {
  it("members on a drop no team owns answers 400 invalid_request and changes nothing", async () => {
    const person = await verifiedPerson(t.ctx, "team");
    const d = await createDrop(
      t.ctx,
      { account: person.account, via: "api_key", credentialKey: `key:${person.keyId}` },
      { files: SITE, ttl: null },
    );
    const before = await findDropAccess(t.ctx.db, (await findDropBySlug(t.ctx.db, d.slug))!.id);
    const res = await accessRoute.PUT(
      apiRequest(`/drops/${d.slug}/access`, {
        method: "PUT",
        body: JSON.stringify({ mode: "members" }),
        headers: { "content-type": "application/json", ...bearer(person.apiKey) },
      }),
      { params: Promise.resolve({ slug: d.slug }) },
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; error: string };
    expect(body.code).toBe("invalid_request");
    expect(body.error).toContain("team");
    expect(await findDropAccess(t.ctx.db, before!.id)).toEqual(before);
    expect((await visit(d.slug, "/")).status).toBe(200);
  });

  it("members with a password is refused as any unknown field, changing nothing", async () => {
    const s = await membersSite();
    const before = await findDropAccess(t.ctx.db, s.dropId);
    await expect(
      setAccess(t.ctx, s.teamAccount, s.slug, { mode: "members", password: "not allowed here" }),
    ).rejects.toMatchObject({ code: "invalid_request" });
    expect(await findDropAccess(t.ctx.db, s.dropId)).toEqual(before);
  });
});

describe("the drop host", () => {
  it("answers a visitor without the cookie with 302 to BASE_URL/access/members (no-store), on every path and method, with no drop byte", async () => {
    const s = await membersSite();
    for (const [path, method] of [
      ["/", "GET"],
      ["/about?x=1", "GET"],
      ["/style.css", "GET"],
      ["/missing", "GET"],
      ["/", "HEAD"],
    ] as const) {
      const v = await visit(s.slug, path, { method });
      expect(v.status, path).toBe(302);
      expect(v.headers.get("cache-control"), path).toBe("private, no-store");
      expect(v.headers.get("set-cookie"), path).toBeNull();
      const to = new URL(v.headers.get("location")!);
      expect(`${to.origin}${to.pathname}`).toBe(`${TEST_BASE_URL}/access/members`);
      expect(Object.fromEntries(to.searchParams)).toEqual({ drop: s.slug, return: path });
      expectNothingOfTheDrop(v, path);
    }
    // A password form post on a members-only drop sets nothing.
    const post = await visit(s.slug, UNLOCK_PATH, {
      method: "POST",
      body: "password=whatever123&path=/",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(post.headers.get("set-cookie")).toBeNull();
    expectNothingOfTheDrop(post, "password post");
  });
});

describe("GET /access/members", () => {
  it("without a session sends the visitor to the login page, which comes back here", async () => {
    const s = await membersSite();
    const before = await tokenRows();
    const v = await entry(null, { drop: s.slug, return: "/about?x=1" });
    expect(v.status).toBe(302);
    expect(v.headers.get("cache-control")).toContain("no-store");
    const to = new URL(v.headers.get("location")!, TEST_BASE_URL);
    expect(to.pathname).toBe("/login");
    const next = new URL(to.searchParams.get("next")!, TEST_BASE_URL);
    expect(next.pathname).toBe("/access/members");
    expect(Object.fromEntries(next.searchParams)).toEqual({ drop: s.slug, return: "/about?x=1" });
    expect(await tokenRows()).toBe(before);
  });

  it("a member (any role) goes back through the unlock path with a token; it sets the password's cookie and returns to the path", async () => {
    const s = await membersSite();
    for (const person of [s.owner, s.member, s.viewer]) {
      const { token, returnTo, path } = unlockTarget(
        await entry(person.account, { drop: s.slug, return: "/about?x=1" }),
        s.slug,
      );
      expect(returnTo).toBe("/about?x=1");
      // Only a keyed hash of the token is stored.
      const stored = await t.ctx.db.select().from(memberAccessTokens).where(eq(memberAccessTokens.dropId, s.dropId));
      expect(stored.some((r) => r.tokenHash.includes(token) || token.includes(r.tokenHash))).toBe(false);
      expect(stored.every((r) => /^[0-9a-f]{64}$/.test(r.tokenHash))).toBe(true);
      const unlocked = await visit(s.slug, path);
      expect(unlocked.status).toBe(302);
      expect(unlocked.headers.get("location")).toBe("/about?x=1");
      expect(unlocked.headers.get("cache-control")).toBe("private, no-store");
      const set = unlocked.headers.get("set-cookie")!;
      expect(set).toMatch(new RegExp(`^${accessCookieName(t.ctx.env)}=`));
      expect(set).toContain("HttpOnly");
      expect(set).toContain("SameSite=Lax");
      expect(set).not.toContain("Domain=");
      expectNothingOfTheDrop(unlocked, "unlock");
      const page = await visit(s.slug, "/about", { headers: { cookie: cookieOf(unlocked) } });
      expect(page.status).toBe(200);
      expect(page.text).toContain(MARKER);
      expect(page.headers.get("cache-control")).toContain("private");
    }
  });

  it("a logged-in person who is not a member gets 403 with a page saying so, no drop byte and no token", async () => {
    const s = await membersSite();
    const stranger = await verifiedPerson(t.ctx, "team");
    const before = await tokenRows();
    const v = await entry(stranger.account, { drop: s.slug, return: "/" });
    expect(v.status).toBe(403);
    expect(v.headers.get("content-type")).toContain("text/html");
    expect(v.headers.get("cache-control")).toContain("no-store");
    expect(v.headers.get("location")).toBeNull();
    expect(v.text).toContain("<h1>Only the team&#39;s members can see this site</h1>");
    expect(v.text).toContain('<html lang="en">');
    expectNothingOfTheDrop(v, "non-member");
    expect(await tokenRows()).toBe(before);
  });

  it("a drop that is not members-only, or no drop, answers 404 and makes no token", async () => {
    const s = await membersSite();
    const before = await tokenRows();
    await setAccess(t.ctx, s.teamAccount, s.slug, { mode: "public" });
    expect((await entry(s.member.account, { drop: s.slug })).status).toBe(404);
    expect((await entry(s.member.account, { drop: "no-such-drop" })).status).toBe(404);
    expect((await entry(s.member.account, { drop: "../Bad" })).status).toBe(404);
    expect(await tokenRows()).toBe(before);
  });

  it("the return path is a path on the drop's host only: anything else comes back as /", async () => {
    const s = await membersSite();
    for (const bad of [
      "//evil.example/x",
      "https://evil.example/",
      "\\\\evil.example",
      "javascript:alert(1)",
      UNLOCK_PATH,
    ]) {
      const { returnTo, path } = await tokenFor(s.member, s.slug, bad);
      expect(returnTo, bad).toBe("/");
      const u = new URL(path, "http://x.invalid");
      u.searchParams.set("return", bad);
      const v = await visit(s.slug, u.pathname + u.search);
      expect(v.status, bad).toBe(302);
      expect(v.headers.get("location"), bad).toBe("/");
    }
  });
});

describe("another host of the drop", () => {
  it("a visitor on the vanity host comes back to the vanity host; a host that is not the drop's is ignored", async () => {
    const s = await membersSite();
    const sub = `mo${Date.now() % 100000}`;
    await claimVanity(t.ctx, s.teamAccount, { sub });
    const team = await actAsTeam(
      t.ctx,
      { account: s.owner.account, via: "api_key", credentialKey: `key:${s.owner.keyId}` },
      s.team,
    );
    const named = await createDrop(t.ctx, team!, { files: SITE, ttl: null, name: "plan" });
    await setAccess(t.ctx, s.teamAccount, named.slug, { mode: "members" });
    const label = `${sub}--plan`;
    const locked = await visit(label, "/about");
    expect(locked.status).toBe(302);
    const to = new URL(locked.headers.get("location")!);
    expect(Object.fromEntries(to.searchParams)).toEqual({
      drop: named.slug,
      return: "/about",
      host: `${label}.${TEST_SERVE_DOMAIN}`,
    });
    expectNothingOfTheDrop(locked, "vanity");
    // A member goes back to the vanity host's unlock path; the cookie is that host's.
    const back = await entry(s.member.account, Object.fromEntries(to.searchParams));
    expect(back.status).toBe(302);
    const unlock = new URL(back.headers.get("location")!);
    expect(unlock.host).toBe(`${label}.${TEST_SERVE_DOMAIN}`);
    const opened = await visit(label, unlock.pathname + unlock.search);
    expect(opened.status).toBe(302);
    expect(opened.headers.get("location")).toBe("/about");
    expect((await visit(label, "/about", { headers: { cookie: cookieOf(opened) } })).text).toContain(MARKER);
    // Another drop's host, the app host or anywhere else: the token goes to the slug's own host.
    for (const host of [`${s.slug}.${TEST_SERVE_DOMAIN}`, "evil.example", "localhost:3000", `${label}.evil.example`]) {
      const v = await entry(s.member.account, { drop: named.slug, return: "/", host });
      expect(new URL(v.headers.get("location")!).host, host).toBe(`${named.slug}.${TEST_SERVE_DOMAIN}`);
    }
  });
});

describe("a preview host of the drop", () => {
  it("the redirect carries the preview host, a member comes back to it, and its cookie opens that host only", async () => {
    const s = await membersSite();
    const label = `${s.slug}---v1`;
    const locked = await visit(label, "/about");
    expect(locked.status).toBe(302);
    expectNothingOfTheDrop(locked, "preview");
    const to = new URL(locked.headers.get("location")!);
    expect(Object.fromEntries(to.searchParams)).toEqual({
      drop: s.slug,
      return: "/about",
      host: `${label}.${TEST_SERVE_DOMAIN}`,
    });
    const back = await entry(s.member.account, Object.fromEntries(to.searchParams));
    const unlock = new URL(back.headers.get("location")!);
    expect(unlock.host).toBe(`${label}.${TEST_SERVE_DOMAIN}`);
    const opened = await visit(label, unlock.pathname + unlock.search);
    expect(opened.status).toBe(302);
    const cookie = cookieOf(opened);
    const page = await visit(label, "/about", { headers: { cookie } });
    expect(page.text).toContain(MARKER);
    expect(page.headers.get("x-robots-tag")).toBe("noindex");
    // The same cookie on the live host, or on another drop's preview host named in the query, opens nothing.
    expect((await visit(s.slug, "/about", { headers: { cookie } })).status).toBe(302);
    const other = await membersSite();
    const v = await entry(s.member.account, {
      drop: s.slug,
      return: "/",
      host: `${other.slug}---v1.${TEST_SERVE_DOMAIN}`,
    });
    expect(new URL(v.headers.get("location")!).host).toBe(`${s.slug}.${TEST_SERVE_DOMAIN}`);
  });
});

describe("the token", () => {
  it("works once: a replayed token is refused with no cookie and no drop byte", async () => {
    const s = await membersSite();
    const { path } = await tokenFor(s.member, s.slug);
    const first = await visit(s.slug, path);
    expect(first.status).toBe(302);
    const again = await visit(s.slug, path);
    expect(again.status).toBe(403);
    expect(again.headers.get("set-cookie")).toBeNull();
    expect(again.text).toContain("This sign-in link can no longer be used");
    expectNothingOfTheDrop(again, "replay");
  });

  it("of two requests with the same token at once, only one gets the cookie", async () => {
    const s = await membersSite();
    const { path } = await tokenFor(s.member, s.slug);
    const both = await Promise.all([visit(s.slug, path), visit(s.slug, path), visit(s.slug, path)]);
    expect(both.map((v) => v.status).sort()).toEqual([302, 403, 403]);
    expect(both.filter((v) => v.headers.get("set-cookie")).length).toBe(1);
  });

  it("expires after 60 seconds on the clock", async () => {
    const s = await membersSite();
    const late = await tokenFor(s.member, s.slug);
    const inTime = await tokenFor(s.member, s.slug);
    t.clock.advance(59);
    expect((await visit(s.slug, inTime.path)).status).toBe(302);
    t.clock.advance(2);
    const v = await visit(s.slug, late.path);
    expect(v.status).toBe(403);
    expect(v.headers.get("set-cookie")).toBeNull();
  });

  it("is bound to its drop: on another drop (even the same team's) it is refused, and spent", async () => {
    const s = await membersSite();
    const team = await actAsTeam(
      t.ctx,
      { account: s.owner.account, via: "api_key", credentialKey: `key:${s.owner.keyId}` },
      s.team,
    );
    const other = await createDrop(t.ctx, team!, { files: SITE, ttl: null });
    await setAccess(t.ctx, s.teamAccount, other.slug, { mode: "members" });
    const { path } = await tokenFor(s.member, s.slug);
    const wrong = await visit(other.slug, path);
    expect(wrong.status).toBe(403);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    expectNothingOfTheDrop(wrong, "another drop");
    expect((await visit(s.slug, path)).status).toBe(403);
    // A forged or malformed token is refused the same way.
    expect((await visit(s.slug, `${UNLOCK_PATH}?token=mt_${"A".repeat(43)}&return=/`)).status).toBe(403);
    expect((await visit(s.slug, `${UNLOCK_PATH}?return=/`)).status).toBe(403);
  });
});

describe("member changes", () => {
  it("removing a member moves the policy version: every cookie and every unused token stops", async () => {
    const s = await membersSite();
    const memberCookie = cookieOf(await visit(s.slug, (await tokenFor(s.member, s.slug)).path));
    const viewerCookie = cookieOf(await visit(s.slug, (await tokenFor(s.viewer, s.slug)).path));
    const pending = await tokenFor(s.viewer, s.slug);
    expect((await visit(s.slug, "/", { headers: { cookie: memberCookie } })).status).toBe(200);
    const before = (await findDropAccess(t.ctx.db, s.dropId))!.accessPolicyVersion;
    const removed = await teamCall("DELETE", `/teams/${s.teamSlug}/members/${s.member.account.id}`, s.owner.apiKey);
    expect(removed.status).toBe(200);
    expect((await findDropAccess(t.ctx.db, s.dropId))!.accessPolicyVersion).toBe(before + 1);
    for (const cookie of [memberCookie, viewerCookie]) {
      const v = await visit(s.slug, "/", { headers: { cookie } });
      expect(v.status).toBe(302);
      expectNothingOfTheDrop(v, "signed out");
    }
    expect((await visit(s.slug, pending.path)).status).toBe(403);
    // The removed member is now refused; the viewer gets in again.
    expect((await entry(s.member.account, { drop: s.slug })).status).toBe(403);
    expect((await visit(s.slug, (await tokenFor(s.viewer, s.slug)).path)).status).toBe(302);
  });

  it("changing a role moves it too; a refused change moves nothing", async () => {
    const s = await membersSite();
    const cookie = cookieOf(await visit(s.slug, (await tokenFor(s.viewer, s.slug)).path));
    const v0 = (await findDropAccess(t.ctx.db, s.dropId))!.accessPolicyVersion;
    // A viewer may not change roles: 403, and nothing moves.
    const refused = await teamCall("PATCH", `/teams/${s.teamSlug}/members/${s.member.account.id}`, s.viewer.apiKey, {
      role: "admin",
    });
    expect(refused.status).toBe(403);
    expect((await findDropAccess(t.ctx.db, s.dropId))!.accessPolicyVersion).toBe(v0);
    expect((await visit(s.slug, "/", { headers: { cookie } })).status).toBe(200);
    const changed = await teamCall("PATCH", `/teams/${s.teamSlug}/members/${s.viewer.account.id}`, s.owner.apiKey, {
      role: "member",
    });
    expect(changed.status).toBe(200);
    expect((await findDropAccess(t.ctx.db, s.dropId))!.accessPolicyVersion).toBe(v0 + 1);
    expect((await visit(s.slug, "/", { headers: { cookie } })).status).toBe(302);
  });
});

describe("MCP set_access", () => {
  it("offers mode members; on a person's own drop it is refused with invalid_request and changes nothing", async () => {
    const { connectInProcess } = await import("../support/mcp");
    const person = await verifiedPerson(t.ctx, "team");
    const d = await createDrop(
      t.ctx,
      { account: person.account, via: "api_key", credentialKey: `key:${person.keyId}` },
      { files: SITE, ttl: null },
    );
    const id = (await findDropBySlug(t.ctx.db, d.slug))!.id;
    const before = await findDropAccess(t.ctx.db, id);
    const client = await connectInProcess("modern", { ip: "203.0.113.52", credential: person.apiKey });
    try {
      const tools = await client.listTools();
      const tool = tools.tools.find((x) => x.name === "set_access")!;
      expect(JSON.stringify(tool.inputSchema)).toContain('"members"');
      const r = (await client.callTool({ name: "set_access", arguments: { slug: d.slug, mode: "members" } })) as {
        isError?: boolean;
        content: { text?: string }[];
      };
      expect(r.isError).toBe(true);
      expect(r.content[0]?.text).toContain("invalid_request");
      expect(r.content[0]?.text).toContain("belongs to no team");
      expect(await findDropAccess(t.ctx.db, id)).toEqual(before);
    } finally {
      await client.close();
    }
  });
});
