import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { setPlan } from "@/lib/db/accounts";
import { accounts, teams } from "@/lib/db/schema";
import { actAsTeam, personOf } from "@/lib/teams/acting";
import { suiteContext } from "../support/context";
import { teamCall, teamWith, verifiedPerson } from "../support/teams";

// The account a team acts as (DESIGN "Teams": "a team is an account that people share"): made
// with the team, on its billing owner's plan and kept in step with it, gone with the team; a
// member acts as it with their role as it is now, a non-member as nothing.

const t = suiteContext({}, { freshLimiter: true });

async function teamRow(slug: string) {
  const [row] = await t.ctx.db.select().from(teams).where(eq(teams.slug, slug));
  return row!;
}
async function accountRow(id: string) {
  const [row] = await t.ctx.db.select().from(accounts).where(eq(accounts.id, id));
  return row;
}

describe("a team's account", () => {
  it("is made with the team, on the billing owner's plan, and no one's login", async () => {
    const { slug } = await teamWith(t.ctx, []);
    const team = await teamRow(slug);
    const account = await accountRow(team.accountId);
    expect(account).toMatchObject({ issuer: "team", subject: team.id, plan: "team", email: null });
  });

  it("follows the billing owner's plan both ways", async () => {
    const { slug, owner } = await teamWith(t.ctx, []);
    const team = await teamRow(slug);
    await setPlan(t.ctx.db, owner.account.id, "free");
    expect((await accountRow(team.accountId))?.plan).toBe("free");
    await setPlan(t.ctx.db, owner.account.id, "team");
    expect((await accountRow(team.accountId))?.plan).toBe("team");
  });

  it("a member acts as it with their role now; a non-member or a removed member acts as nothing", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["viewer"]);
    const viewer = people[0]!;
    const team = await teamRow(slug);
    const caller = { account: viewer.account, via: "api_key" as const, credentialKey: `key:${viewer.keyId}` };
    const acting = await actAsTeam(t.ctx, caller, team);
    expect(acting?.account.id).toBe(team.accountId);
    expect(acting?.team).toEqual({ id: team.id, role: "viewer" });
    expect(acting && personOf(acting).id).toBe(viewer.account.id);
    expect(personOf(caller).id).toBe(viewer.account.id);

    const stranger = await verifiedPerson(t.ctx, "team");
    expect(await actAsTeam(t.ctx, { ...caller, account: stranger.account }, team)).toBeNull();

    const removed = await teamCall("DELETE", `/teams/${slug}/members/${viewer.account.id}`, owner.apiKey);
    expect(removed.status).toBe(200);
    expect(await actAsTeam(t.ctx, caller, team)).toBeNull();
  });

  it("goes with the team", async () => {
    const { slug, owner } = await teamWith(t.ctx, []);
    const team = await teamRow(slug);
    const res = await teamCall("DELETE", `/teams/${slug}`, owner.apiKey);
    expect(res.status).toBe(200);
    expect(await accountRow(team.accountId)).toBeUndefined();
    expect(await accountRow(owner.account.id)).toBeDefined();
  });
});
