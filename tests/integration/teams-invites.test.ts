import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { teamInvites } from "@/lib/db/schema";
import { limits, TEAM_INVITE_SECONDS } from "@/lib/plans";
import { errorEnvelopeSchema, inviteCreatedSchema, inviteListSchema, teamAuditSchema } from "@/lib/schemas";
import { suiteContext } from "../support/context";
import { freshSlug, invite, teamCall, teamWith, verifiedPerson, type Person } from "../support/teams";
import { accountWithKey } from "../support/accounts";

// Team invitations (single use, 7 days, revocable, optionally bound to an email), seats from the
// plan table, and the team's audit log naming the acting person and credential.

const t = suiteContext({}, { freshLimiter: true });

function expectError(res: { status: number; body: unknown }, status: number, code: string) {
  const body = errorEnvelopeSchema.parse(res.body);
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  return body;
}

const join = (p: Person, code: string) => teamCall("POST", "/teams/join", p.apiKey, { code });
const usableIds = async (slug: string, key: string) =>
  inviteListSchema
    .strict()
    .parse((await teamCall("GET", `/teams/${slug}/invites`, key)).body)
    .invites.map((i) => i.id);
const memberCount = async (slug: string, key: string) =>
  ((await teamCall("GET", `/teams/${slug}/members`, key)).body.members as unknown[]).length;

describe("POST /teams/{team}/invites", () => {
  it("answers 201 {id, code, url, role, expires_at}: 7 days, the code in the URL, only a keyed hash stored", async () => {
    const { slug, owner } = await teamWith(t.ctx, []);
    const res = await teamCall("POST", `/teams/${slug}/invites`, owner.apiKey, { role: "member" });
    expect(res.status).toBe(201);
    const body = inviteCreatedSchema.strict().parse(res.body);
    expect(body.role).toBe("member");
    expect(Date.parse(body.expires_at)).toBe(t.clock.now + TEAM_INVITE_SECONDS * 1000);
    expect(TEAM_INVITE_SECONDS).toBe(7 * 86_400);
    expect(new URL(body.url).origin).toBe(t.ctx.env.BASE_URL);
    expect(new URL(body.url).pathname).toBe(`/dashboard/teams/join/${body.code}`);
    const [row] = await t.ctx.db.select().from(teamInvites).where(eq(teamInvites.id, body.id));
    expect(row).toBeDefined();
    expect(JSON.stringify(row)).not.toContain(body.code.slice(3));
    expect(row!.codeHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ["an unknown role", { role: "superuser" }],
    ["no role", {}],
    ["a malformed email", { role: "member", email: "not-an-email" }],
  ])("%s answers 400 invalid_request and makes no invitation", async (_, body) => {
    const { slug, owner } = await teamWith(t.ctx, []);
    expectError(await teamCall("POST", `/teams/${slug}/invites`, owner.apiKey, body), 400, "invalid_request");
    expect(await usableIds(slug, owner.apiKey)).toEqual([]);
  });
});

describe("POST /teams/join", () => {
  it("a code is single use: the second join answers 410 gone", async () => {
    const { slug, owner } = await teamWith(t.ctx, []);
    const { code, id } = await invite(slug, owner, "viewer");
    const first = await verifiedPerson(t.ctx);
    expect((await join(first, code)).status).toBe(200);
    expect(await usableIds(slug, owner.apiKey)).not.toContain(id);
    const second = await verifiedPerson(t.ctx);
    expectError(await join(second, code), 410, "gone");
    expect((await teamCall("GET", "/teams", second.apiKey)).body).toEqual({ teams: [] });
  });

  it("a revoked code answers 410 gone; revoking again 410, an unknown id 404", async () => {
    const { slug, owner } = await teamWith(t.ctx, []);
    const { code, id } = await invite(slug, owner, "member");
    expect(await teamCall("DELETE", `/teams/${slug}/invites/${id}`, owner.apiKey)).toEqual({
      status: 200,
      body: { revoked: id },
    });
    expect(await usableIds(slug, owner.apiKey)).toEqual([]);
    const person = await verifiedPerson(t.ctx);
    expectError(await join(person, code), 410, "gone");
    expectError(await teamCall("DELETE", `/teams/${slug}/invites/${id}`, owner.apiKey), 410, "gone");
    expectError(await teamCall("DELETE", `/teams/${slug}/invites/inv_nosuch`, owner.apiKey), 404, "not_found");
    expect(await memberCount(slug, owner.apiKey)).toBe(1);
  });

  it("an invitation of another team cannot be revoked through this one (404)", async () => {
    const a = await teamWith(t.ctx, []);
    const b = await teamWith(t.ctx, []);
    const { id, code } = await invite(b.slug, b.owner, "member");
    expectError(await teamCall("DELETE", `/teams/${a.slug}/invites/${id}`, a.owner.apiKey), 404, "not_found");
    expect((await join(await verifiedPerson(t.ctx), code)).status).toBe(200);
  });

  it("an expired code answers 410 gone, and is no longer listed; one second before, it works", async () => {
    const { slug, owner } = await teamWith(t.ctx, []);
    const early = await invite(slug, owner, "member");
    const late = await invite(slug, owner, "member");
    t.clock.advance(TEAM_INVITE_SECONDS - 1);
    expect((await join(await verifiedPerson(t.ctx), early.code)).status).toBe(200);
    t.clock.advance(1);
    expect(await usableIds(slug, owner.apiKey)).toEqual([]);
    expectError(await join(await verifiedPerson(t.ctx), late.code), 410, "gone");
    expect(await memberCount(slug, owner.apiKey)).toBe(2);
  });

  it.each([
    ["a well-formed code nobody issued", `ti_${"A".repeat(43)}`],
    ["a malformed code", "hello"],
    ["another kind of secret", `sp_${"A".repeat(43)}`],
  ])("%s answers 404 not_found", async (_, code) => {
    expectError(await join(await verifiedPerson(t.ctx), code), 404, "not_found");
  });

  it("a body without a code answers 400, and no credential 401", async () => {
    expectError(
      await teamCall("POST", "/teams/join", (await verifiedPerson(t.ctx)).apiKey, {}),
      400,
      "invalid_request",
    );
    expectError(await teamCall("POST", "/teams/join", undefined, { code: "x" }), 401, "auth_required");
  });

  it("an email-bound code lets only that verified login email join (else 403, the code stays usable)", async () => {
    const { slug, owner } = await teamWith(t.ctx, []);
    const invited = await verifiedPerson(t.ctx);
    const { code, id } = await invite(slug, owner, "member", invited.account.email!.toUpperCase());
    const other = await verifiedPerson(t.ctx);
    expectError(await join(other, code), 403, "forbidden");
    // The same address unverified by the identity provider is not enough.
    const unverified = await accountWithKey(t.ctx);
    const boundToUnverified = await invite(slug, owner, "member", unverified.account.email!);
    expectError(await join({ ...unverified }, boundToUnverified.code), 403, "forbidden");
    expect(await usableIds(slug, owner.apiKey)).toContain(id);
    expect(await memberCount(slug, owner.apiKey)).toBe(1);
    expect((await join(invited, code)).body).toMatchObject({ slug, role: "member" });
  });

  it("a member joining again gets 409 conflict and the code stays usable", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["viewer"]);
    const { code, id } = await invite(slug, owner, "admin");
    expectError(await join(people[0]!, code), 409, "conflict");
    expect(await usableIds(slug, owner.apiKey)).toContain(id);
    const roles = (await teamCall("GET", `/teams/${slug}/members`, owner.apiKey)).body.members as { role: string }[];
    expect(roles.map((r) => r.role).sort()).toEqual(["owner", "viewer"]);
  });
});

describe("seats", () => {
  const seats = limits.team.maxMembers;

  it(`the owner counts and pending invitations do not: ${seats} members fill the team, and the next invitation is 400 max_members`, async () => {
    const { slug, owner } = await teamWith(
      t.ctx,
      Array.from({ length: seats - 2 }, () => "viewer" as const),
    );
    expect(await memberCount(slug, owner.apiKey)).toBe(seats - 1);
    // One seat left: several invitations may be pending at once.
    const a = await invite(slug, owner, "member");
    const b = await invite(slug, owner, "member");
    expect((await join(await verifiedPerson(t.ctx), a.code)).status).toBe(200);
    expect(await memberCount(slug, owner.apiKey)).toBe(seats);
    const refused = await teamCall("POST", `/teams/${slug}/invites`, owner.apiKey, { role: "member" });
    expect(expectError(refused, 400, "invalid_request")).toMatchObject({
      limit: "max_members",
      allowed: seats,
      plan: "team",
    });
    // A pending invitation used past the seats: the same 400, and it stays usable.
    const late = await verifiedPerson(t.ctx);
    expect(expectError(await join(late, b.code), 400, "invalid_request")).toMatchObject({ limit: "max_members" });
    expect(await usableIds(slug, owner.apiKey)).toEqual([b.id]);
    expect(await memberCount(slug, owner.apiKey)).toBe(seats);
    // A seat freed is a seat to fill.
    const members = (await teamCall("GET", `/teams/${slug}/members`, owner.apiKey)).body.members as {
      account_id: string;
      role: string;
    }[];
    const viewer = members.find((m) => m.role === "viewer")!;
    expect((await teamCall("DELETE", `/teams/${slug}/members/${viewer.account_id}`, owner.apiKey)).status).toBe(200);
    expect((await join(late, b.code)).status).toBe(200);
  });
});

describe("GET /teams/{team}/audit", () => {
  it("names every change with the acting person and credential, newest first", async () => {
    const owner = await verifiedPerson(t.ctx, "team");
    const slug = freshSlug();
    expect((await teamCall("POST", "/teams", owner.apiKey, { name: "Audited", slug })).status).toBe(201);
    const person = await verifiedPerson(t.ctx);
    const first = await invite(slug, owner, "viewer");
    t.clock.advance(1);
    expect((await join(person, first.code)).status).toBe(200);
    t.clock.advance(1);
    expect(
      (await teamCall("PATCH", `/teams/${slug}/members/${person.account.id}`, owner.apiKey, { role: "admin" })).status,
    ).toBe(200);
    t.clock.advance(1);
    const second = await invite(slug, person, "member");
    t.clock.advance(1);
    expect((await teamCall("DELETE", `/teams/${slug}/invites/${second.id}`, person.apiKey)).status).toBe(200);
    t.clock.advance(1);
    expect((await teamCall("DELETE", `/teams/${slug}/members/${person.account.id}`, owner.apiKey)).status).toBe(200);

    const res = await teamCall("GET", `/teams/${slug}/audit`, owner.apiKey);
    expect(res.status).toBe(200);
    const audit = teamAuditSchema.strict().parse(res.body);
    const asOwner = {
      actor: { id: owner.account.id, email: owner.account.email },
      credential: { kind: "key", id: owner.keyId },
    };
    const asPerson = {
      actor: { id: person.account.id, email: person.account.email },
      credential: { kind: "key", id: person.keyId },
    };
    expect(audit.total).toBe(7);
    expect(audit.entries.map(({ id: _id, at: _at, ...rest }) => rest)).toEqual([
      { ...asOwner, action: "member.removed", target: `account:${person.account.id}` },
      { ...asPerson, action: "invite.revoked", target: `invite:${second.id}` },
      { ...asPerson, action: "member.invited", target: `invite:${second.id}` },
      { ...asOwner, action: "member.role_changed", target: `account:${person.account.id}` },
      { ...asPerson, action: "member.joined", target: `account:${person.account.id}` },
      { ...asOwner, action: "member.invited", target: `invite:${first.id}` },
      { ...asOwner, action: "team.created", target: `team:${slug}` },
    ]);
    // Paging.
    const page = teamAuditSchema.parse(
      (await teamCall("GET", `/teams/${slug}/audit?limit=2&offset=1`, owner.apiKey)).body,
    );
    expect(page.total).toBe(7);
    expect(page.entries.map((e) => e.action)).toEqual(["invite.revoked", "member.invited"]);
    expectError(await teamCall("GET", `/teams/${slug}/audit?limit=0`, owner.apiKey), 400, "invalid_request");
    expectError(await teamCall("GET", `/teams/${slug}/audit?offset=-1`, owner.apiKey), 400, "invalid_request");
    // Decimal digits only, as every query integer (lib/input.ts queryInteger).
    for (const q of ["limit=1e2", "limit=0x10", "limit=", "offset=", "offset=0b1", "offset=%207"])
      expectError(await teamCall("GET", `/teams/${slug}/audit?${q}`, owner.apiKey), 400, "invalid_request");
  });

  it("refused and failed changes write no entry", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["member"]);
    const before = teamAuditSchema.parse((await teamCall("GET", `/teams/${slug}/audit`, owner.apiKey)).body).total;
    const member = people[0]!;
    await teamCall("POST", `/teams/${slug}/invites`, member.apiKey, { role: "viewer" });
    await teamCall("PATCH", `/teams/${slug}/members/${owner.account.id}`, owner.apiKey, { role: "admin" });
    await teamCall("DELETE", `/teams/${slug}/invites/inv_nosuch`, owner.apiKey);
    await join(await verifiedPerson(t.ctx), `ti_${"B".repeat(43)}`);
    expect(teamAuditSchema.parse((await teamCall("GET", `/teams/${slug}/audit`, owner.apiKey)).body).total).toBe(
      before,
    );
  });
});

describe("races", () => {
  it("two joins racing for the last seat: exactly one joins, the other gets 400 max_members", async () => {
    const seats = limits.team.maxMembers;
    const { slug, owner } = await teamWith(
      t.ctx,
      Array.from({ length: seats - 2 }, () => "viewer" as const),
    );
    const [a, b] = [await invite(slug, owner, "member"), await invite(slug, owner, "member")];
    const [p, q] = [await verifiedPerson(t.ctx), await verifiedPerson(t.ctx)];
    const answers = await Promise.all([join(p, a.code), join(q, b.code)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(await memberCount(slug, owner.apiKey)).toBe(seats);
  });

  it("two people racing to use one code: exactly one joins, the other gets 410", async () => {
    const { slug, owner } = await teamWith(t.ctx, []);
    const { code } = await invite(slug, owner, "viewer");
    const answers = await Promise.all([
      join(await verifiedPerson(t.ctx), code),
      join(await verifiedPerson(t.ctx), code),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 410]);
    expect(await memberCount(slug, owner.apiKey)).toBe(2);
  });

  it("two owners demoting each other at once: one stays owner", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["owner"]);
    const other = people[0]!;
    const answers = await Promise.all([
      teamCall("PATCH", `/teams/${slug}/members/${other.account.id}`, owner.apiKey, { role: "admin" }),
      teamCall("PATCH", `/teams/${slug}/members/${owner.account.id}`, other.apiKey, { role: "admin" }),
    ]);
    const statuses = answers.map((r) => r.status).sort();
    // The second to run finds its caller already demoted (403) or its target the last owner (409).
    expect(statuses[0]).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    const members = (await teamCall("GET", `/teams/${slug}/members`, owner.apiKey)).body.members as { role: string }[];
    expect(members.filter((m) => m.role === "owner")).toHaveLength(1);
  });
});
