import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import * as keysRoute from "@/app/keys/route";
import * as keyRoute from "@/app/keys/[id]/route";
import * as dropsRoute from "@/app/drops/route";
import * as deployRoute from "@/app/deploy/route";
import { setPlan } from "@/lib/db/accounts";
import { apiKeys } from "@/lib/db/schema";
import { errorEnvelopeSchema, keysListSchema, mintKeyResponseSchema, teamAuditSchema } from "@/lib/schemas";
import { apiRequest } from "../support/context";
import { bearer } from "../support/accounts";
import { oidcSuite } from "../support/oidc";
import { registerSecret } from "../support/secrets";
import { freshSlug, teamCall } from "../support/teams";

// Team keys (DESIGN "Teams"): minted by a member with POST /keys {team}, acting on the team's
// routes with the minting person's role as it is at each use: demotion and removal take effect
// on the key's next request. Until teams own drops, a team key works on nothing else.

const { t, oidc } = oidcSuite({}, { freshLimiter: true });
let n = 0;
const p = <P>(params: P) => ({ params: Promise.resolve(params) });

interface Someone {
  token: string;
  key: string;
  accountId: string;
}

async function mint(credential: string, body?: unknown) {
  const res = await keysRoute.POST(
    apiRequest("/keys", {
      method: "POST",
      headers: { ...bearer(credential), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    p({}),
  );
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status === 201) registerSecret("api key", json.apiKey as string);
  return { status: res.status, body: json };
}

async function someone(plan: "free" | "team" = "free"): Promise<Someone> {
  const sub = `keys-${++n}`;
  const token = await oidc.mintIdToken({ sub, email: `${sub}@example.test`, iat: new Date(t.clock.now) });
  const minted = await mint(token);
  expect(minted.status).toBe(201);
  const accountId = minted.body.accountId as string;
  if (plan !== "free") await setPlan(t.ctx.db, accountId, plan);
  return { token, key: minted.body.apiKey as string, accountId };
}

/** A team of an owner and one person of `role`, each joined through an invitation. */
async function team(role: "viewer" | "member" | "admin") {
  const owner = await someone("team");
  const slug = freshSlug();
  expect((await teamCall("POST", "/teams", owner.key, { name: "Keyed", slug })).status).toBe(201);
  const person = await someone();
  const invited = await teamCall("POST", `/teams/${slug}/invites`, owner.key, { role });
  registerSecret("team invite code", invited.body.code);
  expect((await teamCall("POST", "/teams/join", person.key, { code: invited.body.code })).status).toBe(200);
  return { slug, owner, person };
}

async function teamKey(who: Someone, slug: string) {
  const res = await mint(who.token, { note: "ci", team: slug });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const body = mintKeyResponseSchema.strict().parse(res.body);
  expect(body.team).toBe(slug);
  return { key: body.apiKey, keyId: body.keyId };
}

const listKeys = async (key: string) => {
  const res = await keysRoute.GET(apiRequest("/keys", { headers: bearer(key) }), p({}));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const revoke = async (key: string, id: string) => {
  const res = await keyRoute.DELETE(apiRequest(`/keys/${id}`, { method: "DELETE", headers: bearer(key) }), p({ id }));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
function expectError(res: { status: number; body: unknown }, status: number, code: string) {
  const body = errorEnvelopeSchema.parse(res.body);
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
}
const audit = async (slug: string, key: string) =>
  teamAuditSchema.parse((await teamCall("GET", `/teams/${slug}/audit`, key)).body);

describe("minting a team key", () => {
  it.each(["viewer", "member", "admin"] as const)(
    "a %s mints one; the team's audit names the key and the person's login",
    async (role) => {
      const { slug, owner, person } = await team(role);
      const { keyId } = await teamKey(person, slug);
      const [entry] = (await audit(slug, owner.key)).entries;
      expect(entry).toMatchObject({
        action: "key.created",
        target: `key:${keyId}`,
        actor: { id: person.accountId, email: `${`keys-${n}`}@example.test` },
        credential: { kind: "session" },
      });
    },
  );

  it("for a team one is not in: 404, and no key is made", async () => {
    const { slug } = await team("member");
    const stranger = await someone();
    const before = await t.ctx.db.select().from(apiKeys).where(eq(apiKeys.accountId, stranger.accountId));
    expectError(await mint(stranger.token, { team: slug }), 404, "not_found");
    expectError(await mint(stranger.token, { team: "no-such-team" }), 404, "not_found");
    expect(await t.ctx.db.select().from(apiKeys).where(eq(apiKeys.accountId, stranger.accountId))).toEqual(before);
  });

  it("with an API key, as any key: 401", async () => {
    const { slug, person } = await team("admin");
    expectError(await mint(person.key, { team: slug }), 401, "auth_required");
  });
});

describe("a team key on its team's routes", () => {
  it("acts with its person's role, and the audit names the key", async () => {
    const { slug, owner, person } = await team("admin");
    const { key, keyId } = await teamKey(person, slug);
    const invited = await teamCall("POST", `/teams/${slug}/invites`, key, { role: "viewer" });
    expect(invited.status).toBe(201);
    expect((await audit(slug, owner.key)).entries[0]).toMatchObject({
      action: "member.invited",
      actor: { id: person.accountId },
      credential: { kind: "key", id: keyId },
    });
  });

  it("a demotion takes effect on the key's next request (403 past the new role)", async () => {
    const { slug, owner, person } = await team("admin");
    const { key } = await teamKey(person, slug);
    expect((await teamCall("GET", `/teams/${slug}/invites`, key)).status).toBe(200);
    const demoted = await teamCall("PATCH", `/teams/${slug}/members/${person.accountId}`, owner.key, {
      role: "viewer",
    });
    expect(demoted.status).toBe(200);
    expectError(await teamCall("GET", `/teams/${slug}/invites`, key), 403, "forbidden");
    expect((await teamCall("GET", `/teams/${slug}/members`, key)).status).toBe(200);
  });

  it("a removal ends the member's team keys at once (401), not their own keys", async () => {
    const { slug, owner, person } = await team("member");
    const { key, keyId } = await teamKey(person, slug);
    expect((await teamCall("GET", `/teams/${slug}/members`, key)).status).toBe(200);
    expect((await teamCall("DELETE", `/teams/${slug}/members/${person.accountId}`, owner.key)).status).toBe(200);
    expectError(await teamCall("GET", `/teams/${slug}/members`, key), 401, "auth_required");
    const [row] = await t.ctx.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
    expect(row?.revokedAt).not.toBeNull();
    expect((await listKeys(person.key)).status).toBe(200);
  });

  it("a deleted team's keys answer 401", async () => {
    const { slug, owner } = await team("member");
    const { key } = await teamKey(owner, slug);
    expect((await teamCall("DELETE", `/teams/${slug}`, owner.key)).status).toBe(200);
    expectError(await teamCall("GET", "/teams/x-y-z/members", key), 401, "auth_required");
  });

  it("reaches only its own team (another team of the same person: 404)", async () => {
    const a = await team("admin");
    const { key } = await teamKey(a.person, a.slug);
    const slugB = freshSlug();
    expect((await teamCall("POST", "/teams", a.owner.key, { name: "B", slug: slugB })).status).toBe(201);
    const ownersKey = await teamKey(a.owner, a.slug);
    expectError(await teamCall("GET", `/teams/${slugB}/members`, ownersKey.key), 404, "not_found");
    expect((await teamCall("GET", `/teams/${slugB}/members`, a.owner.key)).status).toBe(200);
    expect((await teamCall("GET", `/teams/${a.slug}/members`, key)).status).toBe(200);
  });
});

describe("a team key elsewhere", () => {
  it("creating, listing and joining teams take the person's own credential (403)", async () => {
    const { slug, owner } = await team("member");
    const { key } = await teamKey(owner, slug);
    expectError(await teamCall("GET", "/teams", key), 403, "forbidden");
    expectError(await teamCall("POST", "/teams", key, { name: "X", slug: freshSlug() }), 403, "forbidden");
    expectError(await teamCall("POST", "/teams/join", key, { code: `ti_${"C".repeat(43)}` }), 403, "forbidden");
  });

  it("deploys and lists as the team: team and personal drops never mix", async () => {
    const { slug, person } = await team("member");
    const { key } = await teamKey(person, slug);
    const deploy = await deployRoute.POST(
      apiRequest("/deploy", {
        method: "POST",
        body: "<p>x</p>",
        headers: { ...bearer(key), "content-type": "text/html" },
        ip: "198.51.100.90",
      }),
      p({}),
    );
    expect(deploy.status).toBe(200);
    const made = ((await deploy.json()) as { slug: string }).slug;
    const slugs = async (k: string) => {
      const res = await dropsRoute.GET(apiRequest("/drops", { headers: bearer(k) }), p({}));
      expect(res.status).toBe(200);
      return ((await res.json()) as { drops: { slug: string }[] }).drops.map((d) => d.slug);
    };
    expect(await slugs(key)).toEqual([made]);
    expect(await slugs(person.key)).not.toContain(made);
  });
});

describe("keys lists and revocation", () => {
  it("personal and team keys are never mixed; a member's team key lists their own, an admin's all", async () => {
    const { slug, owner, person } = await team("member");
    const mine = await teamKey(person, slug);
    const owners = await teamKey(owner, slug);
    const ids = (body: unknown) => keysListSchema.parse(body).keys.map((k) => k.keyId);
    const personal = ids((await listKeys(person.key)).body);
    expect(personal).toContain(
      (await t.ctx.db.select().from(apiKeys).where(eq(apiKeys.accountId, person.accountId))).find(
        (k) => k.teamId === null,
      )!.id,
    );
    expect(personal).not.toContain(mine.keyId);
    expect(ids((await listKeys(mine.key)).body)).toEqual([mine.keyId]);
    expect(ids((await listKeys(owners.key)).body).sort()).toEqual([mine.keyId, owners.keyId].sort());
  });

  it.each(["viewer", "member"] as const)(
    "a %s's team key revoking another member's key is 403 forbidden, checked before the key is looked up; its own goes",
    async (role) => {
      const { slug, owner, person } = await team(role);
      const mine = await teamKey(person, slug);
      const spare = await teamKey(person, slug);
      const owners = await teamKey(owner, slug);
      expectError(await revoke(mine.key, owners.keyId), 403, "forbidden");
      // No such key at all: the same answer, so a role below admin learns nothing of the team's keys.
      expectError(await revoke(mine.key, "f".repeat(64)), 403, "forbidden");
      const listed = keysListSchema.parse((await listKeys(owners.key)).body).keys.map((k) => k.keyId);
      expect(listed).toContain(owners.keyId);
      expect(await revoke(mine.key, spare.keyId)).toEqual({ status: 200, body: { revoked: spare.keyId } });
    },
  );

  it("a member's team key cannot revoke another's (403); an admin's can; a person revokes their own", async () => {
    const { slug, owner, person } = await team("member");
    const mine = await teamKey(person, slug);
    const second = await teamKey(person, slug);
    const owners = await teamKey(owner, slug);
    expectError(await revoke(mine.key, owners.keyId), 403, "forbidden");
    expect(await revoke(owners.key, mine.keyId)).toEqual({ status: 200, body: { revoked: mine.keyId } });
    expectError(await teamCall("GET", `/teams/${slug}/members`, mine.key), 401, "auth_required");
    expect(await revoke(person.key, second.keyId)).toEqual({ status: 200, body: { revoked: second.keyId } });
    const entries = (await audit(slug, owner.key)).entries.slice(0, 2);
    expect(entries.map((e) => [e.action, e.target, e.actor.id])).toEqual([
      ["key.revoked", `key:${second.keyId}`, person.accountId],
      ["key.revoked", `key:${mine.keyId}`, owner.accountId],
    ]);
  });
});
