import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import * as vanityRoute from "@/app/vanity/route";
import { teamInvites, teamMembers } from "@/lib/db/schema";
import { limits } from "@/lib/plans";
import {
  errorEnvelopeSchema,
  joinedSchema,
  teamCreatedSchema,
  teamListSchema,
  teamMembersSchema,
  TEAM_ROLES,
  type TeamRole,
} from "@/lib/schemas";
import { apiRequest, suiteContext } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { freshSlug, invite, teamCall, teamWith, verifiedPerson } from "../support/teams";

// Teams (DESIGN "Teams"): creating and listing them, the last owner, who may touch owners,
// leaving, deleting, and the one namespace of team slugs and vanity subs.

const t = suiteContext({}, { freshLimiter: true });

async function rolesOf(slug: string, key: string): Promise<Record<string, TeamRole>> {
  const res = await teamCall("GET", `/teams/${slug}/members`, key);
  expect(res.status).toBe(200);
  const { members } = teamMembersSchema.strict().parse(res.body);
  return Object.fromEntries(members.map((m) => [m.account_id, m.role]));
}

function expectError(res: { status: number; body: unknown }, status: number, code: string) {
  const body = errorEnvelopeSchema.parse(res.body);
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  return body;
}

describe("POST /teams", () => {
  it("a Team-plan person creates a team: 201 {id, slug, name, role: owner, plan, created_at}", async () => {
    const owner = await verifiedPerson(t.ctx, "team");
    const slug = freshSlug();
    const res = await teamCall("POST", "/teams", owner.apiKey, { name: "Acme Web", slug });
    expect(res.status).toBe(201);
    const body = teamCreatedSchema.strict().parse(res.body);
    expect(body).toMatchObject({ slug, name: "Acme Web", role: "owner", plan: "team" });
    expect(body.created_at).toBe(new Date(t.clock.now).toISOString());
    expect(await rolesOf(slug, owner.apiKey)).toEqual({ [owner.account.id]: "owner" });
  });

  it.each(["free", "pro"] as const)("a %s person gets 402 subscription_required and no team", async (plan) => {
    const person = await verifiedPerson(t.ctx, plan);
    const slug = freshSlug();
    const body = expectError(
      await teamCall("POST", "/teams", person.apiKey, { name: "X", slug }),
      402,
      "subscription_required",
    );
    expect(body.upgrade_url).toBeTruthy();
    expect((await teamCall("GET", "/teams", person.apiKey)).body).toEqual({ teams: [] });
  });

  it.each([
    ["a reserved label", { name: "X", slug: "www" }],
    ["the route word join", { name: "X", slug: "join" }],
    ["too short", { name: "X", slug: "ab" }],
    ["a double hyphen", { name: "X", slug: "my--team" }],
    ["uppercase", { name: "X", slug: "Acme" }],
    ["no name", { slug: "fine-slug" }],
    ["an empty name", { name: "  ", slug: "fine-slug" }],
    ["a control character in the name", { name: "a\u0007b", slug: "fine-slug" }],
  ])("a body with %s answers 400 invalid_request", async (_, body) => {
    const owner = await verifiedPerson(t.ctx, "team");
    expectError(await teamCall("POST", "/teams", owner.apiKey, body), 400, "invalid_request");
    expect((await teamCall("GET", "/teams", owner.apiKey)).body).toEqual({ teams: [] });
  });

  it("a slug another team holds answers 409 conflict", async () => {
    const { slug } = await teamWith(t.ctx, []);
    const other = await verifiedPerson(t.ctx, "team");
    expectError(await teamCall("POST", "/teams", other.apiKey, { name: "Mine", slug }), 409, "conflict");
    expect((await teamCall("GET", "/teams", other.apiKey)).body).toEqual({ teams: [] });
  });

  it("team slugs and vanity subs share one namespace, both ways", async () => {
    const holder = await accountWithKey(t.ctx, "team");
    const sub = freshSlug();
    const claim = (key: string, s: string) =>
      vanityRoute.POST(
        apiRequest("/vanity", {
          method: "POST",
          headers: { ...bearer(key), "content-type": "application/json" },
          body: JSON.stringify({ sub: s }),
        }),
        { params: Promise.resolve({}) },
      );
    expect((await claim(holder.apiKey, sub)).status).toBe(201);
    const owner = await verifiedPerson(t.ctx, "team");
    expectError(await teamCall("POST", "/teams", owner.apiKey, { name: "X", slug: sub }), 409, "conflict");

    const { slug } = await teamWith(t.ctx, []);
    const claimer = await accountWithKey(t.ctx, "team");
    const res = await claim(claimer.apiKey, slug);
    expect(res.status).toBe(409);
    expect(((await res.json()) as { code: string }).code).toBe("conflict");
  });

  it("needs a credential", async () => {
    expectError(await teamCall("POST", "/teams", undefined, { name: "X", slug: freshSlug() }), 401, "auth_required");
    expectError(await teamCall("GET", "/teams"), 401, "auth_required");
  });
});

describe("GET /teams", () => {
  it("lists the caller's teams with their role, and only theirs", async () => {
    const a = await teamWith(t.ctx, ["viewer"]);
    const b = await teamWith(t.ctx, ["admin"]);
    const viewer = a.people[0]!;
    const { code } = await invite(b.slug, b.owner, "member");
    expect((await teamCall("POST", "/teams/join", viewer.apiKey, { code })).status).toBe(200);
    const res = await teamCall("GET", "/teams", viewer.apiKey);
    const { teams } = teamListSchema.strict().parse(res.body);
    expect(teams.map((x) => [x.slug, x.role]).sort()).toEqual(
      [
        [a.slug, "viewer"],
        [b.slug, "member"],
      ].sort(),
    );
    const stranger = await verifiedPerson(t.ctx, "team");
    expect((await teamCall("GET", "/teams", stranger.apiKey)).body).toEqual({ teams: [] });
  });
});

describe("the last owner", () => {
  it("cannot be demoted or leave (409 conflict), and stays owner", async () => {
    const { slug, owner } = await teamWith(t.ctx, []);
    const id = owner.account.id;
    expectError(
      await teamCall("PATCH", `/teams/${slug}/members/${id}`, owner.apiKey, { role: "admin" }),
      409,
      "conflict",
    );
    expectError(await teamCall("DELETE", `/teams/${slug}/members/${id}`, owner.apiKey), 409, "conflict");
    expect(await rolesOf(slug, owner.apiKey)).toEqual({ [id]: "owner" });
  });

  it("with a second owner, one may leave; then the other is the last", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["owner"]);
    const second = people[0]!;
    const left = await teamCall("DELETE", `/teams/${slug}/members/${owner.account.id}`, owner.apiKey);
    expect(left).toEqual({ status: 200, body: { removed: owner.account.id } });
    expect(await rolesOf(slug, second.apiKey)).toEqual({ [second.account.id]: "owner" });
    expectError(
      await teamCall("PATCH", `/teams/${slug}/members/${second.account.id}`, second.apiKey, { role: "member" }),
      409,
      "conflict",
    );
  });
});

describe("only owners touch owners", () => {
  it("an admin cannot grant the owner role, demote an owner, remove one, or invite one (403), and nothing changes", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["admin", "owner", "viewer"]);
    const [admin, owner2, viewer] = people as [(typeof people)[0], (typeof people)[0], (typeof people)[0]];
    const before = await rolesOf(slug, owner.apiKey);
    const m = (p: { account: { id: string } }) => `/teams/${slug}/members/${p.account.id}`;
    expectError(await teamCall("PATCH", m(viewer), admin.apiKey, { role: "owner" }), 403, "forbidden");
    expectError(await teamCall("PATCH", m(owner2), admin.apiKey, { role: "member" }), 403, "forbidden");
    expectError(await teamCall("DELETE", m(owner2), admin.apiKey), 403, "forbidden");
    expectError(await teamCall("POST", `/teams/${slug}/invites`, admin.apiKey, { role: "owner" }), 403, "forbidden");
    expect(await rolesOf(slug, owner.apiKey)).toEqual(before);
    expect((await teamCall("GET", `/teams/${slug}/invites`, owner.apiKey)).body).toEqual({ invites: [] });
    // An admin may set roles among viewer, member and admin.
    expect((await teamCall("PATCH", m(viewer), admin.apiKey, { role: "admin" })).body).toEqual({
      account_id: viewer.account.id,
      role: "admin",
    });
    // An owner may do all of it.
    expect((await teamCall("PATCH", m(viewer), owner.apiKey, { role: "owner" })).status).toBe(200);
    expect((await teamCall("DELETE", m(owner2), owner.apiKey)).status).toBe(200);
    expect(await rolesOf(slug, owner.apiKey)).toEqual({
      [owner.account.id]: "owner",
      [admin.account.id]: "admin",
      [viewer.account.id]: "owner",
    });
  });

  it("changing or removing an existing admin is the owners' too: an admin's demotion or removal of another admin is 403", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["admin", "admin", "member"]);
    const [admin, admin2, member] = people as [(typeof people)[0], (typeof people)[0], (typeof people)[0]];
    const m = (p: { account: { id: string } }) => `/teams/${slug}/members/${p.account.id}`;
    const before = await rolesOf(slug, owner.apiKey);
    for (const role of ["viewer", "member"] as const)
      expectError(await teamCall("PATCH", m(admin2), admin.apiKey, { role }), 403, "forbidden");
    expectError(await teamCall("DELETE", m(admin2), admin.apiKey), 403, "forbidden");
    expect(await rolesOf(slug, owner.apiKey)).toEqual(before);
    // Admins give viewer, member and admin to viewers and members, and remove them.
    expect((await teamCall("PATCH", m(member), admin.apiKey, { role: "viewer" })).status).toBe(200);
    expect((await teamCall("PATCH", m(member), admin.apiKey, { role: "admin" })).status).toBe(200);
    // Once an admin, the seat is the owners' to change: the owner demotes and removes admins.
    expectError(await teamCall("PATCH", m(member), admin.apiKey, { role: "member" }), 403, "forbidden");
    expect((await teamCall("PATCH", m(admin2), owner.apiKey, { role: "member" })).status).toBe(200);
    expect((await teamCall("DELETE", m(member), owner.apiKey)).status).toBe(200);
    expect(await rolesOf(slug, owner.apiKey)).toEqual({
      [owner.account.id]: "owner",
      [admin.account.id]: "admin",
      [admin2.account.id]: "member",
    });
  });

  it("a role outside the four answers 400, and a person not in the team 404", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["member"]);
    const member = people[0]!;
    expectError(
      await teamCall("PATCH", `/teams/${slug}/members/${member.account.id}`, owner.apiKey, { role: "superuser" }),
      400,
      "invalid_request",
    );
    const stranger = await verifiedPerson(t.ctx);
    expectError(
      await teamCall("PATCH", `/teams/${slug}/members/${stranger.account.id}`, owner.apiKey, { role: "viewer" }),
      404,
      "not_found",
    );
    expectError(
      await teamCall("DELETE", `/teams/${slug}/members/${stranger.account.id}`, owner.apiKey),
      404,
      "not_found",
    );
    expect(await rolesOf(slug, owner.apiKey)).toEqual({ [owner.account.id]: "owner", [member.account.id]: "member" });
  });
});

describe("leaving", () => {
  it.each(["viewer", "member", "admin"] as const)(
    "a %s may leave with their own id; the team is then out of reach",
    async (role) => {
      const { slug, owner, people } = await teamWith(t.ctx, [role]);
      const p = people[0]!;
      expect((await teamCall("DELETE", `/teams/${slug}/members/${p.account.id}`, p.apiKey)).status).toBe(200);
      expect((await teamCall("GET", "/teams", p.apiKey)).body).toEqual({ teams: [] });
      expectError(await teamCall("GET", `/teams/${slug}/members`, p.apiKey), 404, "not_found");
      expect(await rolesOf(slug, owner.apiKey)).toEqual({ [owner.account.id]: "owner" });
    },
  );
});

describe("DELETE /teams/{team}", () => {
  it("owners delete the team with its members and invitations; the slug is free again", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["member"]);
    const pending = await invite(slug, owner, "viewer");
    expect(await teamCall("DELETE", `/teams/${slug}`, owner.apiKey)).toEqual({ status: 200, body: { deleted: slug } });
    expect((await teamCall("GET", "/teams", people[0]!.apiKey)).body).toEqual({ teams: [] });
    expectError(await teamCall("GET", `/teams/${slug}/members`, owner.apiKey), 404, "not_found");
    expect(await t.ctx.db.select().from(teamInvites).where(eq(teamInvites.id, pending.id))).toEqual([]);
    const joiner = await verifiedPerson(t.ctx);
    expectError(await teamCall("POST", "/teams/join", joiner.apiKey, { code: pending.code }), 404, "not_found");
    expect((await teamCall("POST", "/teams", owner.apiKey, { name: "Again", slug })).status).toBe(201);
  });

  it.each(["viewer", "member", "admin"] as const)("a %s gets 403 and the team stays", async (role) => {
    const { slug, owner, people } = await teamWith(t.ctx, [role]);
    expectError(await teamCall("DELETE", `/teams/${slug}`, people[0]!.apiKey), 403, "forbidden");
    expect(Object.keys(await rolesOf(slug, owner.apiKey))).toHaveLength(2);
  });
});

describe("the role matrix over the team routes", () => {
  // What each role may do, as DESIGN states it; every cell is asked through the route.
  type Cell = { action: string; allowed: TeamRole[] };
  const MATRIX: Cell[] = [
    { action: "list members", allowed: ["viewer", "member", "admin", "owner"] },
    { action: "list invites", allowed: ["admin", "owner"] },
    { action: "invite a member", allowed: ["admin", "owner"] },
    { action: "invite an owner", allowed: ["owner"] },
    { action: "revoke an invite", allowed: ["admin", "owner"] },
    { action: "set a role", allowed: ["admin", "owner"] },
    { action: "remove a member", allowed: ["admin", "owner"] },
    { action: "read the audit log", allowed: ["admin", "owner"] },
    { action: "delete the team", allowed: ["owner"] },
  ];

  it.each(
    TEAM_ROLES.flatMap((role) => MATRIX.map((cell) => [role, cell.action, cell.allowed.includes(role)] as const)),
  )("%s: %s → allowed %s; a refusal is 403 and changes nothing", async (role, action, allowed) => {
    // The acting person holds `role`; a separate viewer is the subject of member changes.
    const roles: TeamRole[] = role === "owner" ? ["viewer"] : [role, "viewer"];
    const { slug, owner, people } = await teamWith(t.ctx, roles);
    const actor = role === "owner" ? owner : people[0]!;
    const subject = role === "owner" ? people[0]! : people[1]!;
    const pending = await invite(slug, owner, "member");
    const auditBefore = (await teamCall("GET", `/teams/${slug}/audit`, owner.apiKey)).body.total;
    const rolesBefore = await rolesOf(slug, owner.apiKey);
    const key = actor.apiKey;
    const res = await {
      "list members": () => teamCall("GET", `/teams/${slug}/members`, key),
      "list invites": () => teamCall("GET", `/teams/${slug}/invites`, key),
      "invite a member": () => teamCall("POST", `/teams/${slug}/invites`, key, { role: "member" }),
      "invite an owner": () => teamCall("POST", `/teams/${slug}/invites`, key, { role: "owner" }),
      "revoke an invite": () => teamCall("DELETE", `/teams/${slug}/invites/${pending.id}`, key),
      "set a role": () => teamCall("PATCH", `/teams/${slug}/members/${subject.account.id}`, key, { role: "member" }),
      "remove a member": () => teamCall("DELETE", `/teams/${slug}/members/${subject.account.id}`, key),
      "read the audit log": () => teamCall("GET", `/teams/${slug}/audit`, key),
      "delete the team": () => teamCall("DELETE", `/teams/${slug}`, key),
    }[action]!();
    if (allowed) {
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      return;
    }
    expectError(res, 403, "forbidden");
    expect(await rolesOf(slug, owner.apiKey)).toEqual(rolesBefore);
    const invites = (await teamCall("GET", `/teams/${slug}/invites`, owner.apiKey)).body.invites as { id: string }[];
    expect(invites.map((i) => i.id)).toEqual([pending.id]);
    expect((await teamCall("GET", `/teams/${slug}/audit`, owner.apiKey)).body.total).toBe(auditBefore);
  });

  it.each([
    ["GET", "/members"],
    ["GET", "/invites"],
    ["POST", "/invites"],
    ["GET", "/audit"],
    ["DELETE", ""],
    ["PATCH", "/members/acc_x"],
    ["DELETE", "/members/acc_x"],
    ["DELETE", "/invites/inv_x"],
  ])(
    "a person outside the team gets 404 for %s /teams/{team}%s, as for a team that does not exist",
    async (method, rest) => {
      const { slug, owner } = await teamWith(t.ctx, []);
      const stranger = await verifiedPerson(t.ctx, "team");
      const body = method === "POST" || method === "PATCH" ? { role: "viewer" } : undefined;
      expectError(await teamCall(method, `/teams/${slug}${rest}`, stranger.apiKey, body), 404, "not_found");
      expectError(await teamCall(method, `/teams/no-such-team${rest}`, stranger.apiKey, body), 404, "not_found");
      expect(Object.keys(await rolesOf(slug, owner.apiKey))).toEqual([owner.account.id]);
    },
  );

  it("a role is checked before the body: a viewer's malformed invite is 403, not 400", async () => {
    const { slug, people } = await teamWith(t.ctx, ["viewer"]);
    expectError(await teamCall("POST", `/teams/${slug}/invites`, people[0]!.apiKey, "{not json"), 403, "forbidden");
  });

  it("joined members are stored with the invitation's role", async () => {
    const { slug, owner } = await teamWith(t.ctx, []);
    const person = await verifiedPerson(t.ctx);
    const { code } = await invite(slug, owner, "admin");
    const res = await teamCall("POST", "/teams/join", person.apiKey, { code });
    expect(joinedSchema.strict().parse(res.body)).toMatchObject({ slug, role: "admin" });
    const rows = await t.ctx.db.select().from(teamMembers).where(eq(teamMembers.accountId, person.account.id));
    expect(rows.map((r) => r.role)).toEqual(["admin"]);
    expect(limits.team.maxMembers).toBe(10);
  });
});
