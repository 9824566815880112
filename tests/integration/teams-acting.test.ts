import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import * as dropsRoute from "@/app/drops/route";
import * as dropRoute from "@/app/drops/[slug]/route";
import * as deployRoute from "@/app/deploy/route";
import * as domainsRoute from "@/app/domains/route";
import * as domainRoute from "@/app/domains/[hostname]/route";
import * as webhooksRoute from "@/app/webhooks/route";
import * as webhookRoute from "@/app/webhooks/[id]/route";
import * as vanityRoute from "@/app/vanity/route";
import * as billingMeRoute from "@/app/billing/me/route";
import * as checkoutRoute from "@/app/billing/checkout/route";
import * as suspendRoute from "@/app/admin/accounts/[id]/suspend/route";
import * as unsuspendRoute from "@/app/admin/accounts/[id]/unsuspend/route";
import { accounts, drops, events, teams } from "@/lib/db/schema";
import { teamAuditSchema, type TeamRole } from "@/lib/schemas";
import { apiRequest, suiteContext } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { connectAgent, resultText } from "../support/mcp";
import { deployAs, nextIp, teamCall, teamKeyOf, teamWith, type Person } from "../support/teams";

// Acting as a team (DESIGN "Teams"): a team key acts as the team's account on every account
// route and MCP tool, with the minting person's role as it is at each use, checked before
// anything else; what it changes is the team's, names the person (data.actor, the audit log),
// and never mixes with the person's own.

const OPERATOR_EMAIL = "ops@example.test";
const t = suiteContext({ ADMIN_EMAILS: OPERATOR_EMAIL, WEBHOOKS_ALLOW_PRIVATE: "1" }, { freshLimiter: true });
const p = <P>(params: P) => ({ params: Promise.resolve(params) });
async function dropExists(slug: string) {
  return (await t.ctx.db.select({ id: drops.id }).from(drops).where(eq(drops.slug, slug))).length === 1;
}

const ROLES: TeamRole[] = ["viewer", "member", "admin", "owner"];

/** The weakest role DESIGN gives each class, and a request of that class as a team key sends it. */
const CLASSES: { name: string; weakest: TeamRole; send: (key: string, own: string) => Promise<Response> }[] = [
  {
    name: "read (GET /drops)",
    weakest: "viewer",
    send: (key) => dropsRoute.GET(apiRequest("/drops", { headers: bearer(key) }), p({})),
  },
  {
    name: "deploy (POST /deploy)",
    weakest: "member",
    send: (key) =>
      deployRoute.POST(
        apiRequest("/deploy", {
          method: "POST",
          body: "<p>x</p>",
          headers: { ...bearer(key), "content-type": "text/html" },
          ip: nextIp(),
        }),
        p({}),
      ),
  },
  {
    name: "delete (DELETE /drops/{slug})",
    weakest: "admin",
    send: (key, own) =>
      dropRoute.DELETE(apiRequest(`/drops/${own}`, { method: "DELETE", headers: bearer(key) }), p({ slug: own })),
  },
  {
    name: "webhooks (GET /webhooks)",
    weakest: "admin",
    send: (key) => webhooksRoute.GET(apiRequest("/webhooks", { headers: bearer(key) }), p({})),
  },
  {
    name: "domains (POST /domains)",
    weakest: "admin",
    send: (key) =>
      domainsRoute.POST(
        apiRequest("/domains", {
          method: "POST",
          body: "{}",
          headers: { ...bearer(key), "content-type": "application/json" },
        }),
        p({}),
      ),
  },
  {
    name: "vanity (POST /vanity)",
    weakest: "admin",
    send: (key) =>
      vanityRoute.POST(
        apiRequest("/vanity", {
          method: "POST",
          body: "{}",
          headers: { ...bearer(key), "content-type": "application/json" },
        }),
        p({}),
      ),
  },
  {
    name: "billing (GET /billing/me)",
    weakest: "owner",
    send: (key) => billingMeRoute.GET(apiRequest("/billing/me", { headers: bearer(key) }), p({})),
  },
];

describe("the role matrix through REST: every class x every role", () => {
  it("a role below the class's weakest gets 403 forbidden and changes nothing; at or above, the route answers", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["viewer", "member", "admin"]);
    const byRole: Record<TeamRole, Person> = { viewer: people[0]!, member: people[1]!, admin: people[2]!, owner };
    const keys = Object.fromEntries(
      await Promise.all(ROLES.map(async (r) => [r, await teamKeyOf(t.ctx, byRole[r], slug)] as const)),
    );
    const ownerKey = keys.owner!;
    for (const cls of CLASSES) {
      for (const role of ROLES) {
        const target = (await deployAs(ownerKey)).body.slug!;
        const before = await t.ctx.db.select({ n: drops.id }).from(drops);
        const res = await cls.send(keys[role]!, target);
        const allowed = ROLES.indexOf(role) >= ROLES.indexOf(cls.weakest);
        const body = (await res.json()) as { code?: string };
        if (allowed) {
          expect(res.status, `${cls.name} as ${role}: ${JSON.stringify(body)}`).not.toBe(403);
        } else {
          expect({ what: `${cls.name} as ${role}`, status: res.status, code: body.code }).toEqual({
            what: `${cls.name} as ${role}`,
            status: 403,
            code: "forbidden",
          });
          expect(await dropExists(target)).toBe(true);
          expect((await t.ctx.db.select({ n: drops.id }).from(drops)).length).toBe(before.length);
        }
      }
    }
  }, 120_000);

  it("a person's own payment pages refuse a team key, whatever the role", async () => {
    const { slug, owner } = await teamWith(t.ctx, []);
    const key = await teamKeyOf(t.ctx, owner, slug);
    const res = await checkoutRoute.POST(
      apiRequest("/billing/checkout", {
        method: "POST",
        body: '{"plan":"team"}',
        headers: { ...bearer(key), "content-type": "application/json" },
      }),
      p({}),
    );
    expect(res.status).toBe(403);
  });
});

describe("a team key follows its person's membership", () => {
  it("demoted: 403 past the new role on the next request; removed: 401", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["member"]);
    const member = people[0]!;
    const key = await teamKeyOf(t.ctx, member, slug);
    expect((await deployAs(key)).status).toBe(200);
    const demoted = await teamCall("PATCH", `/teams/${slug}/members/${member.account.id}`, owner.apiKey, {
      role: "viewer",
    });
    expect(demoted.status).toBe(200);
    expect(await deployAs(key)).toMatchObject({ status: 403, body: { code: "forbidden" } });
    expect((await dropsRoute.GET(apiRequest("/drops", { headers: bearer(key) }), p({}))).status).toBe(200);
    expect((await teamCall("DELETE", `/teams/${slug}/members/${member.account.id}`, owner.apiKey)).status).toBe(200);
    expect(await deployAs(key)).toMatchObject({ status: 401, body: { code: "auth_required" } });
  });
});

describe("a suspended team or person", () => {
  it("suspending the team's account stops every member's team key, not their own; suspending a person stops theirs for the team", async () => {
    const ops = await accountWithKey(t.ctx, "free");
    await t.ctx.db
      .update(accounts)
      .set({ email: OPERATOR_EMAIL, emailVerified: true })
      .where(eq(accounts.id, ops.account.id));
    const operatorPost = (path: string, id: string, body?: unknown) =>
      (path.endsWith("unsuspend") ? unsuspendRoute : suspendRoute).POST(
        apiRequest(`/admin/accounts/${id}/${path}`, {
          method: "POST",
          headers: { ...bearer(ops.apiKey), "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
        p({ id }),
      );
    const { slug, people } = await teamWith(t.ctx, ["member"]);
    const member = people[0]!;
    const key = await teamKeyOf(t.ctx, member, slug);
    const [team] = await t.ctx.db.select().from(teams).where(eq(teams.slug, slug));
    expect((await deployAs(key)).status).toBe(200);

    expect((await operatorPost("suspend", team!.accountId, { reason: "spam" })).status).toBe(200);
    const before = await t.ctx.db.select({ id: drops.id }).from(drops).where(eq(drops.ownerId, team!.accountId));
    expect(await deployAs(key)).toMatchObject({ status: 403, body: { code: "forbidden" } });
    expect((await dropsRoute.GET(apiRequest("/drops", { headers: bearer(key) }), p({}))).status).toBe(403);
    expect(await t.ctx.db.select({ id: drops.id }).from(drops).where(eq(drops.ownerId, team!.accountId))).toEqual(
      before,
    );
    // The person's own key is theirs, not the team's: it goes on.
    expect((await deployAs(member.apiKey)).status).toBe(200);
    expect((await operatorPost("unsuspend", team!.accountId)).status).toBe(200);
    expect((await deployAs(key)).status).toBe(200);

    expect((await operatorPost("suspend", member.account.id, { reason: "spam" })).status).toBe(200);
    expect(await deployAs(key)).toMatchObject({ status: 403, body: { code: "forbidden" } });
  });
});

describe("what a person changes for a team names them", () => {
  it("the event's data.actor and the team's audit entry, with the key used", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["member"]);
    const member = people[0]!;
    const key = await teamKeyOf(t.ctx, member, slug);
    const made = (await deployAs(key)).body.slug!;
    const [team] = await t.ctx.db.select().from(teams).where(eq(teams.slug, slug));
    const [event] = await t.ctx.db
      .select()
      .from(events)
      .where(and(eq(events.accountId, team!.accountId), eq(events.type, "drop.deployed")));
    expect(event?.data).toMatchObject({ slug: made, actor: { id: member.account.id, email: member.account.email } });
    const audit = teamAuditSchema.parse((await teamCall("GET", `/teams/${slug}/audit`, owner.apiKey)).body);
    const entry = audit.entries.find((e) => e.action === "drop.deployed");
    expect(entry).toMatchObject({
      actor: { id: member.account.id },
      credential: { kind: "key" },
      target: `drop:${made}`,
    });
    // A person's own deploy is theirs: no actor, no team audit entry.
    const own = await deployAs(member.apiKey);
    const [mine] = await t.ctx.db
      .select()
      .from(events)
      .where(and(eq(events.accountId, member.account.id), eq(events.type, "drop.deployed")));
    expect(mine?.data).toMatchObject({ slug: own.body.slug });
    expect(mine?.data).not.toHaveProperty("actor");
  });
});

describe("a team's domains in its audit log", () => {
  it("added and removed by an admin's team key, named with the person and the key", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["admin"]);
    const admin = people[0]!;
    const key = await teamKeyOf(t.ctx, admin, slug);
    const made = (await deployAs(key)).body.slug!;
    const hostname = `www.${slug}.example.com`;
    const added = await domainsRoute.POST(
      apiRequest("/domains", {
        method: "POST",
        body: JSON.stringify({ hostname, slug: made }),
        headers: { ...bearer(key), "content-type": "application/json" },
      }),
      p({}),
    );
    expect(added.status, await added.clone().text()).toBe(201);
    const removed = await domainRoute.DELETE(
      apiRequest(`/domains/${hostname}`, { method: "DELETE", headers: bearer(key) }),
      p({ hostname }),
    );
    expect(removed.status).toBe(200);
    const audit = teamAuditSchema.parse((await teamCall("GET", `/teams/${slug}/audit`, owner.apiKey)).body);
    const actions = audit.entries.filter((e) => e.target === `domain:${hostname}`).map((e) => e.action);
    expect(actions.sort()).toEqual(["domain.added", "domain.removed"]);
    expect(audit.entries.find((e) => e.action === "domain.added")).toMatchObject({
      actor: { id: admin.account.id },
      credential: { kind: "key" },
    });
  });
});

describe("a team's webhooks in its audit log", () => {
  it("added and removed, each entry written with its change: a removal that finds nothing writes none", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["admin"]);
    const admin = people[0]!;
    const key = await teamKeyOf(t.ctx, admin, slug);
    const added = await webhooksRoute.POST(
      apiRequest("/webhooks", {
        method: "POST",
        body: JSON.stringify({ url: "http://127.0.0.1:9/team-hook" }),
        headers: { ...bearer(key), "content-type": "application/json" },
      }),
      p({}),
    );
    expect(added.status, await added.clone().text()).toBe(201);
    const { id } = (await added.json()) as { id: string };
    const remove = () =>
      webhookRoute.DELETE(apiRequest(`/webhooks/${id}`, { method: "DELETE", headers: bearer(key) }), p({ id }));
    expect((await remove()).status).toBe(200);
    expect((await remove()).status).toBe(404);
    const audit = teamAuditSchema.parse((await teamCall("GET", `/teams/${slug}/audit`, owner.apiKey)).body);
    const mine = audit.entries.filter((e) => e.target === `webhook:${id}`);
    expect(mine.map((e) => e.action).sort()).toEqual(["webhook.added", "webhook.removed"]);
    for (const e of mine) expect(e).toMatchObject({ actor: { id: admin.account.id }, credential: { kind: "key" } });
    // The person's own webhook is no team's: no entry anywhere.
    const own = await webhooksRoute.POST(
      apiRequest("/webhooks", {
        method: "POST",
        body: JSON.stringify({ url: "http://127.0.0.1:9/own-hook" }),
        headers: { ...bearer(admin.apiKey), "content-type": "application/json" },
      }),
      p({}),
    );
    expect(own.status).toBe(201);
    const after = teamAuditSchema.parse((await teamCall("GET", `/teams/${slug}/audit`, owner.apiKey)).body);
    expect(after.entries.filter((e) => e.action.startsWith("webhook."))).toHaveLength(2);
  });
});

describe("MCP: a team key acts as the team, behind the same gate", () => {
  it("a viewer lists the team's drops but may not deploy or delete; an admin deletes", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["viewer", "admin"]);
    const made = (await deployAs(await teamKeyOf(t.ctx, owner, slug))).body.slug!;
    const viewer = await connectAgent("client-2.x", {
      ip: nextIp(),
      credential: await teamKeyOf(t.ctx, people[0]!, slug),
    });
    try {
      const listed = await viewer.call("list_drops", {});
      expect(listed.isError).toBeFalsy();
      expect(JSON.stringify(listed.structuredContent)).toContain(made);
      const deploy = await viewer.call("deploy_html", { html: "<p>no</p>" });
      expect(deploy.isError).toBe(true);
      expect(resultText(deploy)).toContain("Error (forbidden)");
      const del = await viewer.call("delete_drop", { slug: made });
      expect(del.isError).toBe(true);
      expect(resultText(del)).toContain("Error (forbidden)");
      expect(await dropExists(made)).toBe(true);
    } finally {
      await viewer.close();
    }
    const admin = await connectAgent("sdk-1.x", { ip: nextIp(), credential: await teamKeyOf(t.ctx, people[1]!, slug) });
    try {
      const del = await admin.call("delete_drop", { slug: made });
      expect(del.isError, JSON.stringify(del)).toBeFalsy();
      expect(await dropExists(made)).toBe(false);
    } finally {
      await admin.close();
    }
  });
});

describe("the role matrix through MCP: every class a tool has x every role", () => {
  const TOOLS: { name: string; weakest: TeamRole; args: (own: string) => Record<string, unknown> }[] = [
    { name: "list_drops", weakest: "viewer", args: () => ({}) },
    { name: "get_drop", weakest: "viewer", args: (own) => ({ slug: own }) },
    { name: "deploy_html", weakest: "member", args: () => ({ html: "<p>mcp</p>" }) },
    { name: "set_access", weakest: "member", args: (own) => ({ slug: own, mode: "public" }) },
    { name: "delete_drop", weakest: "admin", args: (own) => ({ slug: own }) },
    { name: "list_webhooks", weakest: "admin", args: () => ({}) },
    { name: "add_domain", weakest: "admin", args: (own) => ({ hostname: `m.${own}.example.com`, slug: own }) },
  ];

  it("a role below the tool's class gets a forbidden tool error and nothing changes", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["viewer", "member", "admin"]);
    const byRole: Record<TeamRole, Person> = { viewer: people[0]!, member: people[1]!, admin: people[2]!, owner };
    const ownerKey = await teamKeyOf(t.ctx, owner, slug);
    for (const role of ROLES) {
      const agent = await connectAgent("client-2.x", {
        ip: nextIp(),
        credential: await teamKeyOf(t.ctx, byRole[role], slug),
      });
      try {
        for (const tool of TOOLS) {
          const own = (await deployAs(ownerKey)).body.slug!;
          const before = (await t.ctx.db.select({ n: drops.id }).from(drops)).length;
          const result = await agent.call(tool.name, tool.args(own));
          const refused = resultText(result).includes("Error (forbidden)");
          const allowed = ROLES.indexOf(role) >= ROLES.indexOf(tool.weakest);
          expect({ what: `${tool.name} as ${role}`, refused }).toEqual({
            what: `${tool.name} as ${role}`,
            refused: !allowed,
          });
          if (!allowed) {
            expect(await dropExists(own)).toBe(true);
            expect((await t.ctx.db.select({ n: drops.id }).from(drops)).length).toBe(before);
          }
        }
      } finally {
        await agent.close();
      }
    }
  }, 120_000);
});

describe("DELETE /teams/{team}", () => {
  it("purges the team's drops with their bytes; the owner's own drops stay", async () => {
    const { slug, owner } = await teamWith(t.ctx, []);
    const key = await teamKeyOf(t.ctx, owner, slug);
    const made = (await deployAs(key)).body.slug!;
    const own = (await deployAs(owner.apiKey)).body.slug!;
    const [row] = await t.ctx.db.select().from(drops).where(eq(drops.slug, made));
    expect((await teamCall("DELETE", `/teams/${slug}`, owner.apiKey)).status).toBe(200);
    expect(await dropExists(made)).toBe(false);
    expect(await dropExists(own)).toBe(true);
    expect(await t.ctx.storage.list(`${row!.id}/`)).toEqual([]);
  });
});
