import { describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import type { Client } from "@modelcontextprotocol/client";
import { oauthSuite, registerClient, startAuthorization, initializeMcp } from "../support/oauth";
import { connectHttp } from "../support/mcp";
import { teamCall, teamWith } from "../support/teams";
import { registerSecret } from "../support/secrets";
import { decideConsent, INTERACTION_COOKIE } from "@/lib/oauth/consent";
import { callerFromCredential } from "@/lib/auth/caller";
import { drops, oauthModels, teams } from "@/lib/db/schema";

// The OAuth consent page's choice of the account or team an MCP connection acts for (DESIGN
// "Teams"): the grant keeps the team, and its tokens act as the team's account through the
// official MCP client, with the person's role as it is at each use: a removed member's token
// stops (401 with the challenge), a demoted member's carries the new role.

const { t, app, url } = oauthSuite();
const REDIRECT = "http://127.0.0.1:43211/callback";

const newClient = () => registerClient(app.baseUrl, "Team Agent", REDIRECT, { scope: "mcp" });

/** The browser's first leg and the person's decision (as the consent form posts it). */
async function consent(
  clientId: string,
  accountId: string,
  acting: string,
): Promise<{ to: URL | null; verifier: string }> {
  const { jar, uid, verifier } = await startAuthorization(app.baseUrl, clientId, REDIRECT);
  const returnTo = await decideConsent(t.ctx, uid, jar.get(INTERACTION_COOKIE), accountId, true, acting);
  if (!returnTo) return { to: null, verifier };
  const back = await fetch(new URL(returnTo, app.baseUrl), { redirect: "manual", headers: { cookie: jar.header() } });
  expect(back.status).toBe(303);
  return { to: new URL(back.headers.get("location")!, app.baseUrl), verifier };
}

async function accessToken(clientId: string, accountId: string, acting: string): Promise<string> {
  const { to, verifier } = await consent(clientId, accountId, acting);
  expect(to?.searchParams.get("code")).toBeTruthy();
  const res = await fetch(url("/api/oauth/token"), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: to!.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: `${app.baseUrl}/mcp`,
    }),
  });
  expect(res.status).toBe(200);
  const access = ((await res.json()) as { access_token: string }).access_token;
  registerSecret("oauth access token", access);
  return access;
}

const mcpClient = (access: string) => connectHttp(app.baseUrl, { credential: access });

async function listed(client: Client): Promise<string[]> {
  const r = (await client.callTool({ name: "list_drops", arguments: {} })) as {
    isError?: boolean;
    structuredContent?: { drops: { slug: string }[] };
  };
  expect(r.isError).toBeFalsy();
  return r.structuredContent!.drops.map((d) => d.slug);
}

const initialize = (access: string) => initializeMcp(app.baseUrl, access);

async function teamAccountId(slug: string): Promise<string> {
  const [row] = await t.ctx.db.select({ accountId: teams.accountId }).from(teams).where(eq(teams.slug, slug));
  return row!.accountId;
}

async function grantTeams(accountId: string): Promise<(string | null)[]> {
  const rows = await t.ctx.db
    .select({ teamId: oauthModels.teamId })
    .from(oauthModels)
    .where(and(eq(oauthModels.model, "Grant"), eq(oauthModels.accountId, accountId)));
  return rows.map((r) => r.teamId);
}

describe("consent for a team", () => {
  it("the grant keeps the team; the token deploys and lists as the team's account, the person's token as the person", async () => {
    const { slug, people } = await teamWith(t.ctx, ["member"]);
    const member = people[0]!;
    const clientId = await newClient();

    const asTeam = await mcpClient(await accessToken(clientId, member.account.id, slug));
    const deployed = (await asTeam.callTool({ name: "deploy_html", arguments: { html: "<h1>team page</h1>" } })) as {
      isError?: boolean;
      structuredContent?: { slug: string };
    };
    expect(deployed.isError, JSON.stringify(deployed)).toBeFalsy();
    const dropSlug = deployed.structuredContent!.slug;
    const [row] = await t.ctx.db.select({ ownerId: drops.ownerId }).from(drops).where(eq(drops.slug, dropSlug));
    expect(row?.ownerId).toBe(await teamAccountId(slug));
    expect(await listed(asTeam)).toEqual([dropSlug]);
    await asTeam.close();

    // The same person connecting as themselves sees none of the team's drops.
    const asPerson = await mcpClient(await accessToken(clientId, member.account.id, ""));
    expect(await listed(asPerson)).toEqual([]);
    await asPerson.close();

    const [team] = await t.ctx.db.select({ id: teams.id }).from(teams).where(eq(teams.slug, slug));
    expect((await grantTeams(member.account.id)).sort()).toEqual([null, team!.id].sort());
  });

  it("a team the person is not a member of is refused at the decision, and no grant is made", async () => {
    const { slug } = await teamWith(t.ctx, []);
    const other = await teamWith(t.ctx, []);
    const clientId = await newClient();
    const { to } = await consent(clientId, other.owner.account.id, slug);
    expect(to).toBeNull();
    expect(await grantTeams(other.owner.account.id)).toEqual([]);
  });
});

describe("the membership, re-checked at every use", () => {
  it("a removed member's team token answers 401 with the challenge", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["member"]);
    const member = people[0]!;
    const access = await accessToken(await newClient(), member.account.id, slug);
    expect((await initialize(access)).status).toBe(200);

    const removed = await teamCall("DELETE", `/teams/${slug}/members/${member.account.id}`, owner.apiKey);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    const res = await initialize(access);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate") ?? "").toContain('error="invalid_token"');
  });

  it("a demoted member's team token carries the new role at its next use", async () => {
    const { slug, owner, people } = await teamWith(t.ctx, ["admin"]);
    const admin = people[0]!;
    const access = await accessToken(await newClient(), admin.account.id, slug);
    const before = await callerFromCredential(t.ctx, access, "mcp");
    expect(before?.team?.role).toBe("admin");
    expect(before?.account?.id).toBe(await teamAccountId(slug));
    expect(before?.actor?.id).toBe(admin.account.id);

    const demoted = await teamCall("PATCH", `/teams/${slug}/members/${admin.account.id}`, owner.apiKey, {
      role: "viewer",
    });
    expect(demoted.status, JSON.stringify(demoted.body)).toBe(200);
    const after = await callerFromCredential(t.ctx, access, "mcp");
    expect(after?.team?.role).toBe("viewer");
    expect(after?.account?.id).toBe(await teamAccountId(slug));
  });
});
