import { describe, expect, it } from "vitest";
import { suiteContext } from "../support/context";
import { cliAgainstRoutes } from "../support/cli";
import { registerSecret } from "../support/secrets";
import { answerTeamRoute, freshSlug, teamCall, verifiedPerson } from "../support/teams";

// The command-line client (cli/dist/dropsite.mjs) against the /teams route modules of this
// suite's context: dropsite teams create|list|invite|join|members|role|remove.

const t = suiteContext({}, { freshLimiter: true });
const { cli } = cliAgainstRoutes("203.0.113.61", answerTeamRoute);

describe("dropsite teams", () => {
  it("creates a team, invites, joins, lists members, changes a role and removes a member", async () => {
    const owner = await verifiedPerson(t.ctx, "team");
    const person = await verifiedPerson(t.ctx);
    const slug = freshSlug();

    const created = await cli(["teams", "create", slug, "--name", "CLI Team"], owner.apiKey);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain(`Created team ${slug} (CLI Team); you are its owner.`);

    const listed = await cli(["teams", "list", "--json"], owner.apiKey);
    expect(JSON.parse(listed.stdout)).toMatchObject({ teams: [{ slug, name: "CLI Team", role: "owner" }] });

    const invited = await cli(["teams", "invite", slug, "member", "--json"], owner.apiKey);
    expect(invited.code, invited.stderr).toBe(0);
    const { code } = JSON.parse(invited.stdout) as { code: string };
    registerSecret("team invite code", code);

    const joined = await cli(["teams", "join", code], person.apiKey);
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.stdout).toContain(`Joined team ${slug} as member.`);

    const again = await cli(["teams", "join", code], (await verifiedPerson(t.ctx)).apiKey);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("(gone, HTTP 410)");

    const members = await cli(["teams", "members", slug], owner.apiKey);
    expect(members.code, members.stderr).toBe(0);
    expect(members.stdout).toMatch(new RegExp(`${person.account.id}\\s+member`));

    const role = await cli(["teams", "role", slug, person.account.id, "admin"], owner.apiKey);
    expect(role.stdout).toContain(`${person.account.id} is now admin.`);

    const lastOwner = await cli(["teams", "remove", slug, owner.account.id], owner.apiKey);
    expect(lastOwner.code).toBe(1);
    expect(lastOwner.stderr).toContain("(conflict, HTTP 409)");

    const pending = await cli(["teams", "invite", slug, "viewer", "--json"], owner.apiKey);
    const { id, code: pendingCode } = JSON.parse(pending.stdout) as { id: string; code: string };
    registerSecret("team invite code", pendingCode);
    const invites = await cli(["teams", "invites", slug], owner.apiKey);
    expect(invites.stdout).toMatch(new RegExp(`${id}\\s+viewer`));
    const revoked = await cli(["teams", "revoke", slug, id], owner.apiKey);
    expect(revoked.stdout).toContain(`Revoked invitation ${id}.`);
    expect((await cli(["teams", "invites", slug], owner.apiKey)).stdout).toContain("No usable invitations.");

    const log = await cli(["teams", "audit", slug, "--limit", "2"], owner.apiKey);
    expect(log.code, log.stderr).toBe(0);
    const lines = log.stdout.trim().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/invite\.revoked\s+invite:\S+\s+\S+@example\.test\s+key:/);
    expect(lines[2]).toMatch(/member\.invited/);
    const denied = await cli(["teams", "audit", slug], person.apiKey);
    expect(denied.code).toBe(0);
    const viewerRole = await cli(["teams", "role", slug, person.account.id, "viewer"], owner.apiKey);
    expect(viewerRole.code).toBe(0);
    const refused = await cli(["teams", "audit", slug], person.apiKey);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("(forbidden, HTTP 403)");

    const removed = await cli(["teams", "remove", slug, person.account.id], owner.apiKey);
    expect(removed.code, removed.stderr).toBe(0);
    const roles = (await teamCall("GET", `/teams/${slug}/members`, owner.apiKey)).body.members as { role: string }[];
    expect(roles.map((m) => m.role)).toEqual(["owner"]);
  });

  it("a role outside the four is a usage error (exit 2) and sends nothing", async () => {
    const owner = await verifiedPerson(t.ctx, "team");
    const slug = freshSlug();
    expect((await cli(["teams", "create", slug], owner.apiKey)).code).toBe(0);
    const bad = await cli(["teams", "invite", slug, "superuser"], owner.apiKey);
    expect(bad.code).toBe(2);
    expect((await teamCall("GET", `/teams/${slug}/invites`, owner.apiKey)).body).toEqual({ invites: [] });
  });
});
