import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { POST as deployPOST } from "@/app/deploy/route";
import { POST as appendPOST } from "@/app/deploy/[slug]/route";
import * as dropsRoute from "@/app/drops/route";
import * as dropRoute from "@/app/drops/[slug]/route";
import { disableDrop } from "@/lib/admin/actions";
import { comments, dropVersions, events, reviewLinks } from "@/lib/db/schema";
import { sha256Hex } from "@/lib/ids";
import { findDropBySlug } from "@/lib/db/queries";
import { reviewLimits } from "@/lib/plans";
import { accountWithKey, bearer } from "../support/accounts";
import { apiRequest, suiteContext } from "../support/context";
import { reviewCall as call, tokenOf } from "../support/review";
import { teamKeyOf, teamWith } from "../support/teams";

// Review (DESIGN round 5, "Review"): review links (minted by members and up, stored hashed,
// expiring, revoked at once), comments pinned on a page of a version and their replies, resolve
// and reopen, the caps and rates of the plan table, a link reaching its own drop only, the
// webhooks, open_comments in deploy answers, and what goes with a deleted drop.

const t = suiteContext({}, { freshLimiter: true });
const noParams = { params: Promise.resolve({}) };
let ip = 0;
const nextIp = () => `192.0.2.${(++ip % 200) + 20}`;

async function deploy(apiKey: string, query: string, files: Record<string, string>) {
  const res = await deployPOST(
    apiRequest(`/deploy${query}`, {
      method: "POST",
      body: JSON.stringify({ files }),
      headers: { "content-type": "application/json", ...bearer(apiKey) },
      ip: nextIp(),
    }),
    noParams,
  );
  const body = (await res.json()) as { slug: string; version: number; open_comments: number };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** A pro account's named drop with versions 1 and 2 (live), and a review link to it. */
async function reviewed() {
  const owner = await accountWithKey(t.ctx, "pro");
  const name = `rv-${Math.random().toString(36).slice(2, 8)}`;
  const { slug } = await deploy(owner.apiKey, `?name=${name}`, { "index.html": "<p>one</p>" });
  await deploy(owner.apiKey, `?name=${name}`, { "index.html": "<p>two</p>", "about.html": "<p>a</p>" });
  const link = await call("POST", `/drops/${slug}/review-links`, owner.apiKey, { label: "Ana" });
  expect(link.status, JSON.stringify(link.body)).toBe(201);
  return { owner, name, slug, token: tokenOf(link.body!.url!), linkId: link.body!.id! };
}

const pinned = { version: 2, path: "/", body: "The header overlaps", pin: { width: 1280, x: 640, y: 120 } };

describe("review links", () => {
  it("minted with a token shown once (stored hashed), listed without it, expire after their days, revoked at once", async () => {
    const owner = await accountWithKey(t.ctx, "pro");
    const { slug } = await deploy(owner.apiKey, "", { "index.html": "<p>x</p>" });
    const made = await call("POST", `/drops/${slug}/review-links`, owner.apiKey);
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^rvl_[a-z2-7]{24}$/),
      url: expect.stringMatching(/^http:\/\/localhost:3000\/review\/rl_[A-Za-z0-9_-]{43}$/),
      expires_at: new Date(t.clock.now + reviewLimits.linkDaysDefault * 86_400_000).toISOString(),
    });
    const token = tokenOf(made.body!.url!);
    const [row] = await t.ctx.db.select().from(reviewLinks).where(eq(reviewLinks.id, made.body!.id!));
    expect(row!.tokenHash).toBe(sha256Hex(token));
    expect(JSON.stringify(row)).not.toContain(token);

    t.clock.advance(1);
    const thirty = await call("POST", `/drops/${slug}/review-links`, owner.apiKey, {
      expires_in_days: 30,
      label: "QA",
    });
    expect(thirty.body!.expires_at).toBe(new Date(t.clock.now + 30 * 86_400_000).toISOString());
    for (const bad of [
      { expires_in_days: 0 },
      { expires_in_days: 31 },
      { expires_in_days: 1.5 },
      { label: "a\u0000" },
    ]) {
      const refused = await call("POST", `/drops/${slug}/review-links`, owner.apiKey, bad);
      expect(refused, JSON.stringify(bad)).toMatchObject({ status: 400, body: { code: "invalid_request" } });
    }
    const listed = await call("GET", `/drops/${slug}/review-links`, owner.apiKey);
    expect(listed.body!.review_links!.map((l) => [l.id, l.label])).toEqual([
      [thirty.body!.id, "QA"],
      [made.body!.id, null],
    ]);
    expect(JSON.stringify(listed.body)).not.toContain("rl_");

    // The link reads its drop's comments; revoked, it is 401 at once and gone from the list.
    expect((await call("GET", `/drops/${slug}/comments`, token)).status).toBe(200);
    expect((await call("DELETE", `/drops/${slug}/review-links/${made.body!.id}`, owner.apiKey)).status).toBe(204);
    expect(await call("GET", `/drops/${slug}/comments`, token)).toMatchObject({
      status: 401,
      body: { code: "auth_required" },
    });
    expect((await call("DELETE", `/drops/${slug}/review-links/${made.body!.id}`, owner.apiKey)).status).toBe(404);
    expect((await call("GET", `/drops/${slug}/review-links`, owner.apiKey)).body!.review_links).toHaveLength(1);

    // Expired after its days: 401, and no longer listed.
    const thirtyToken = tokenOf(thirty.body!.url!);
    t.clock.advance(30 * 86_400 + 1);
    expect((await call("GET", `/drops/${slug}/comments`, thirtyToken)).status).toBe(401);
    expect((await call("GET", `/drops/${slug}/review-links`, owner.apiKey)).body!.review_links).toEqual([]);
  });

  it("members and up mint; a viewer is 403; another account 404; a disabled drop's links are 403", async () => {
    const { slug: team, owner, people } = await teamWith(t.ctx, ["viewer", "member"]);
    const teamKey = await teamKeyOf(t.ctx, owner, team);
    const viewerKey = await teamKeyOf(t.ctx, people[0]!, team, "viewer");
    const memberKey = await teamKeyOf(t.ctx, people[1]!, team, "member");
    const { slug } = await deploy(teamKey, "", { "index.html": "<p>team</p>" });
    expect(await call("POST", `/drops/${slug}/review-links`, viewerKey)).toMatchObject({
      status: 403,
      body: { code: "forbidden" },
    });
    expect((await call("POST", `/drops/${slug}/review-links`, memberKey)).status).toBe(201);
    expect((await call("GET", `/drops/${slug}/review-links`, viewerKey)).body!.review_links).toHaveLength(1);
    const other = await accountWithKey(t.ctx, "pro");
    expect((await call("POST", `/drops/${slug}/review-links`, other.apiKey)).status).toBe(404);
    expect((await call("POST", `/drops/${slug}/review-links`)).status).toBe(401);

    await disableDrop(t.ctx, { id: "cli" }, slug, { reason: "spam" });
    expect(await call("POST", `/drops/${slug}/review-links`, memberKey)).toMatchObject({
      status: 403,
      body: { code: "forbidden" },
    });
    expect(
      await t.ctx.db
        .select()
        .from(reviewLinks)
        .where(eq(reviewLinks.dropId, await dropIdOf(slug))),
    ).toHaveLength(1);
  });
});

async function dropIdOf(slug: string): Promise<string> {
  return (await findDropBySlug(t.ctx.db, slug))!.id;
}

describe("comments", () => {
  it("an account and a link holder comment (pinned and page-level); bodies are kept as text; the list puts open first", async () => {
    const { owner, slug, token } = await reviewed();
    const mine = await call("POST", `/drops/${slug}/comments`, owner.apiKey, { ...pinned, name: "ignored" });
    expect(mine.status, JSON.stringify(mine.body)).toBe(201);
    expect(mine.body).toEqual({
      id: expect.stringMatching(/^cmt_[a-z2-7]{24}$/),
      version: 2,
      version_pruned: false,
      path: "/",
      pin: { width: 1280, x: 640, y: 120 },
      body: "The header overlaps",
      author: { kind: "account", name: owner.account.email },
      status: "open",
      created_at: new Date(t.clock.now).toISOString(),
      resolved_at: null,
      replies: [],
      screenshot_url: null,
    });
    const html = '<img src=x onerror="alert(1)"><script>alert(2)</script>';
    t.clock.advance(1);
    const theirs = await call("POST", `/drops/${slug}/comments`, token, {
      version: 2,
      path: "/about.html",
      body: html,
      name: "  Ana  ",
    });
    expect(theirs.status, JSON.stringify(theirs.body)).toBe(201);
    expect(theirs.body).toMatchObject({ body: html, pin: null, author: { kind: "review_link", name: "Ana" } });
    t.clock.advance(1);
    const index = await call("POST", `/drops/${slug}/comments`, token, {
      version: 1,
      path: "/index.html",
      body: "old",
      name: "Ana",
    });
    expect(index.body!.path).toBe("/");

    const resolved = await call("PATCH", `/drops/${slug}/comments/${mine.body!.id}`, owner.apiKey, {
      status: "resolved",
    });
    expect(resolved).toMatchObject({ status: 200, body: { status: "resolved", resolved_at: expect.any(String) } });

    const open = await call("GET", `/drops/${slug}/comments`, token);
    expect(open.body!.total).toBe(2);
    expect(open.body!.comments!.map((c) => c.id)).toEqual([theirs.body!.id, index.body!.id]);
    const all = await call("GET", `/drops/${slug}/comments?status=all`, owner.apiKey);
    expect(all.body!.comments!.map((c) => c.id)).toEqual([theirs.body!.id, index.body!.id, mine.body!.id]);
    const v1 = await call("GET", `/drops/${slug}/comments?status=all&version=1`, owner.apiKey);
    expect(v1.body!.comments!.map((c) => c.id)).toEqual([index.body!.id]);
    const home = await call("GET", `/drops/${slug}/comments?status=all&path=/index.html`, owner.apiKey);
    expect(home.body!.comments!.map((c) => c.id)).toEqual([index.body!.id, mine.body!.id]);
    const done = await call("GET", `/drops/${slug}/comments?status=resolved`, owner.apiKey);
    expect(done.body!.comments!.map((c) => c.id)).toEqual([mine.body!.id]);
    for (const q of ["status=closed", "version=0", "version=1e2", "path=about"]) {
      expect((await call("GET", `/drops/${slug}/comments?${q}`, owner.apiKey)).status, q).toBe(400);
    }
  });

  it("bad input is 400 (and an unknown version 404) with nothing stored", async () => {
    const { owner, slug, token } = await reviewed();
    const bad: [string | undefined, unknown, number][] = [
      [owner.apiKey, { ...pinned, pin: { width: 1000, x: 1, y: 1 } }, 400],
      [owner.apiKey, { ...pinned, pin: { width: 390, x: 391, y: 1 } }, 400],
      [owner.apiKey, { ...pinned, pin: { width: 390, x: -1, y: 1 } }, 400],
      [owner.apiKey, { ...pinned, pin: { width: 1280, x: 1, y: 50_001 } }, 400],
      [owner.apiKey, { ...pinned, body: "" }, 400],
      [owner.apiKey, { ...pinned, body: "   \n " }, 400],
      [owner.apiKey, { ...pinned, body: "x".repeat(reviewLimits.bodyChars + 1) }, 400],
      [owner.apiKey, { ...pinned, body: "nul\u0000" }, 400],
      [owner.apiKey, { ...pinned, path: "about.html" }, 400],
      [owner.apiKey, { ...pinned, version: 9 }, 404],
      [owner.apiKey, "not json", 400],
      [token, { ...pinned }, 400],
      [token, { ...pinned, name: "" }, 400],
      [token, { ...pinned, name: "n".repeat(reviewLimits.nameChars + 1) }, 400],
    ];
    for (const [who, body, status] of bad) {
      const res = await call("POST", `/drops/${slug}/comments`, who, body);
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(status);
      expect(res.body!.code).toBe(status === 404 ? "not_found" : "invalid_request");
    }
    expect(
      await t.ctx.db
        .select()
        .from(comments)
        .where(eq(comments.dropId, await dropIdOf(slug))),
    ).toEqual([]);
    // The edges are accepted: 2,000 characters, a pin at the page's right edge and 50,000 down.
    const edge = await call("POST", `/drops/${slug}/comments`, owner.apiKey, {
      ...pinned,
      body: "é".repeat(reviewLimits.bodyChars),
      pin: { width: 390, x: 390, y: 50_000 },
    });
    expect(edge.status).toBe(201);
  });

  it("replies from link holders and accounts; only the drop's team resolves (a link 403, a viewer 403, a member reopens)", async () => {
    const { slug: team, owner, people } = await teamWith(t.ctx, ["viewer", "member"]);
    const teamKey = await teamKeyOf(t.ctx, owner, team);
    const viewerKey = await teamKeyOf(t.ctx, people[0]!, team, "viewer");
    const memberKey = await teamKeyOf(t.ctx, people[1]!, team, "member");
    const { slug } = await deploy(teamKey, "", { "index.html": "<p>team</p>" });
    const token = tokenOf((await call("POST", `/drops/${slug}/review-links`, memberKey)).body!.url!);
    const thread = await call("POST", `/drops/${slug}/comments`, viewerKey, { ...pinned, version: 1 });
    expect(thread.status, JSON.stringify(thread.body)).toBe(201);
    expect(thread.body!.author).toEqual({ kind: "account", name: people[0]!.account.email });
    const id = thread.body!.id!;

    const reply = await call("POST", `/drops/${slug}/comments/${id}/replies`, token, { body: "Agreed", name: "Bo" });
    expect(reply).toMatchObject({
      status: 201,
      body: { id: expect.stringMatching(/^cmt_/), body: "Agreed", author: { kind: "review_link", name: "Bo" } },
    });
    expect((await call("POST", `/drops/${slug}/comments/${id}/replies`, token, { body: "x" })).status).toBe(400);
    expect(
      (await call("POST", `/drops/${slug}/comments/${reply.body!.id}/replies`, token, { body: "x", name: "Bo" }))
        .status,
    ).toBe(404);
    expect((await call("POST", `/drops/${slug}/comments/cmt_nope/replies`, memberKey, { body: "x" })).status).toBe(404);
    t.clock.advance(1);
    await call("POST", `/drops/${slug}/comments/${id}/replies`, memberKey, { body: "Fixing" });

    expect(await call("PATCH", `/drops/${slug}/comments/${id}`, token, { status: "resolved" })).toMatchObject({
      status: 403,
      body: { code: "forbidden" },
    });
    expect(await call("PATCH", `/drops/${slug}/comments/${id}`, viewerKey, { status: "resolved" })).toMatchObject({
      status: 403,
      body: { code: "forbidden" },
    });
    expect((await call("PATCH", `/drops/${slug}/comments/${id}`, memberKey, { status: "done" })).status).toBe(400);
    const closed = await call("PATCH", `/drops/${slug}/comments/${id}`, memberKey, { status: "resolved" });
    expect(closed.body).toMatchObject({ status: "resolved", replies: [{ body: "Agreed" }, { body: "Fixing" }] });
    const reopened = await call("PATCH", `/drops/${slug}/comments/${id}`, memberKey, { status: "open" });
    expect(reopened.body).toMatchObject({ status: "open", resolved_at: null });
    expect(
      (await call("PATCH", `/drops/${slug}/comments/${reply.body!.id}`, memberKey, { status: "resolved" })).status,
    ).toBe(404);
  });

  it("a link reaches its own drop's comments only: another drop 404, account routes 401", async () => {
    const a = await reviewed();
    const b = await reviewed();
    expect(await call("GET", `/drops/${b.slug}/comments`, a.token)).toMatchObject({
      status: 404,
      body: { code: "not_found" },
    });
    expect((await call("POST", `/drops/${b.slug}/comments`, a.token, { ...pinned, name: "x" })).status).toBe(404);
    expect((await call("GET", `/drops/${a.slug}/review-links`, a.token)).status).toBe(401);
    expect((await call("POST", `/drops/${a.slug}/review-links`, a.token)).status).toBe(401);
    const list = await dropsRoute.GET(apiRequest("/drops", { headers: bearer(a.token) }), noParams);
    expect(list.status).toBe(401);
    const del = await dropRoute.DELETE(apiRequest(`/drops/${a.slug}`, { method: "DELETE", headers: bearer(a.token) }), {
      params: Promise.resolve({ slug: a.slug }),
    });
    expect(del.status).toBe(401);
    const bogus = `rl_${"A".repeat(43)}`;
    expect((await call("GET", `/drops/${a.slug}/comments`, bogus)).status).toBe(401);
    expect((await call("GET", `/drops/${a.slug}/comments`, "rl_short")).status).toBe(401);
    expect((await call("GET", `/drops/${a.slug}/comments`)).status).toBe(401);
  });
});

describe("caps and rates", () => {
  it(`the ${reviewLimits.openCommentsPerDrop + 1}st open thread is 400 max_open_comments; resolving one makes room`, async () => {
    const { owner, slug } = await reviewed();
    const dropId = await dropIdOf(slug);
    await t.ctx.db.insert(comments).values(
      Array.from({ length: reviewLimits.openCommentsPerDrop - 1 }, (_, i) => ({
        id: `cmt_seed${String(i).padStart(20, "a")}`,
        dropId,
        version: 2,
        path: "/",
        body: `seed ${i}`,
        authorKind: "account" as const,
        authorName: "seed",
      })),
    );
    const last = await call("POST", `/drops/${slug}/comments`, owner.apiKey, pinned);
    expect(last.status).toBe(201);
    expect(await call("POST", `/drops/${slug}/comments`, owner.apiKey, pinned)).toMatchObject({
      status: 400,
      body: { code: "invalid_request", limit: "max_open_comments", allowed: reviewLimits.openCommentsPerDrop },
    });
    await call("PATCH", `/drops/${slug}/comments/${last.body!.id}`, owner.apiKey, { status: "resolved" });
    expect((await call("POST", `/drops/${slug}/comments`, owner.apiKey, pinned)).status).toBe(201);
    // Reopening past the cap is refused the same way.
    expect(
      await call("PATCH", `/drops/${slug}/comments/${last.body!.id}`, owner.apiKey, { status: "open" }),
    ).toMatchObject({
      status: 400,
      body: { limit: "max_open_comments" },
    });
  });

  it(`a review link writes ${reviewLimits.commentsPerLinkPerHour} an hour, an address ${reviewLimits.commentsPerAddressPerHour}: 429 past them`, async () => {
    const { slug, token } = await reviewed();
    for (let i = 0; i < reviewLimits.commentsPerLinkPerHour; i++) {
      const res = await call("POST", `/drops/${slug}/comments`, token, { ...pinned, name: "Ana" }, `198.18.0.${i + 1}`);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    const past = await call("POST", `/drops/${slug}/comments`, token, { ...pinned, name: "Ana" }, "198.18.1.1");
    expect(past).toMatchObject({ status: 429, body: { code: "rate_limited" } });
    expect(
      (await call("POST", `/drops/${slug}/comments/cmt_x/replies`, token, { body: "r", name: "Ana" })).status,
    ).toBe(404);

    const second = await reviewed();
    const address = "198.18.2.2";
    for (let i = 0; i < reviewLimits.commentsPerAddressPerHour; i++) {
      t.clock.advance(1); // the key's own budget is 120 a minute
      const res = await call("POST", `/drops/${second.slug}/comments`, second.owner.apiKey, pinned, address);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    // Another credential from the same address is counted there too.
    const blocked = await call(
      "POST",
      `/drops/${second.slug}/comments`,
      second.token,
      { ...pinned, name: "B" },
      address,
    );
    expect(blocked).toMatchObject({ status: 429, body: { code: "rate_limited" } });
    t.clock.advance(3601);
    expect((await call("POST", `/drops/${slug}/comments`, token, { ...pinned, name: "Ana" }, address)).status).toBe(
      201,
    );
  });
});

describe("review across a drop's life", () => {
  it("deploy answers carry open_comments; a pruned version's threads stay (version_pruned); a deleted drop takes its comments and links", async () => {
    const { owner, name, slug, token } = await reviewed();
    const one = await call("POST", `/drops/${slug}/comments`, token, { ...pinned, version: 1, name: "Ana" });
    t.clock.advance(1);
    await call("POST", `/drops/${slug}/comments`, owner.apiKey, pinned);
    await call("POST", `/drops/${slug}/comments/${one.body!.id}/replies`, owner.apiKey, { body: "ok" });
    const third = await deploy(owner.apiKey, `?name=${name}`, { "index.html": "<p>three</p>" });
    expect(third.open_comments).toBe(2);
    const appended = await appendPOST(
      apiRequest(`/deploy/${slug}`, {
        method: "POST",
        body: JSON.stringify({ files: { "more.html": "m" } }),
        headers: { "content-type": "application/json", ...bearer(owner.apiKey) },
      }),
      { params: Promise.resolve({ slug }) },
    );
    expect(((await appended.json()) as { open_comments: number }).open_comments).toBe(2);
    const fresh = await deploy(owner.apiKey, "", { "index.html": "new" });
    expect(fresh.open_comments).toBe(0);

    // Version 1 pruned: its thread is still listed, marked.
    const dropId = await dropIdOf(slug);
    await t.ctx.db.delete(dropVersions).where(and(eq(dropVersions.dropId, dropId), eq(dropVersions.version, 1)));
    const listed = await call("GET", `/drops/${slug}/comments`, owner.apiKey);
    expect(listed.body!.comments!.map((c) => [c.version, c.version_pruned, c.replies.length])).toEqual([
      [1, true, 1],
      [2, false, 0],
    ]);
    expect((await call("POST", `/drops/${slug}/comments`, owner.apiKey, { ...pinned, version: 1 })).status).toBe(404);

    const del = await dropRoute.DELETE(
      apiRequest(`/drops/${slug}`, { method: "DELETE", headers: bearer(owner.apiKey) }),
      {
        params: Promise.resolve({ slug }),
      },
    );
    expect(del.status).toBe(200);
    expect(await t.ctx.db.select().from(comments).where(eq(comments.dropId, dropId))).toEqual([]);
    expect(await t.ctx.db.select().from(reviewLinks).where(eq(reviewLinks.dropId, dropId))).toEqual([]);
    expect((await call("GET", `/drops/${slug}/comments`, token)).status).toBe(401);
  });

  it("comment.created and comment.resolved are recorded for the owner's webhooks with the documented body", async () => {
    const { owner, slug, token } = await reviewed();
    const made = await call("POST", `/drops/${slug}/comments`, token, { ...pinned, name: "Ana" });
    await call("POST", `/drops/${slug}/comments/${made.body!.id}/replies`, owner.apiKey, { body: "reply" });
    await call("PATCH", `/drops/${slug}/comments/${made.body!.id}`, owner.apiKey, { status: "resolved" });
    const rows = (await t.ctx.db.select().from(events).where(eq(events.accountId, owner.account.id))).filter((e) =>
      e.type.startsWith("comment."),
    );
    const comment = {
      id: made.body!.id,
      version: 2,
      path: "/",
      body: pinned.body,
      author: { kind: "review_link", name: "Ana" },
      pin: pinned.pin,
    };
    expect(rows.map((r) => [r.type, r.data])).toEqual([
      ["comment.created", { slug, comment }],
      ["comment.resolved", { slug, comment }],
    ]);
  });
});
