import { describe, expect, it } from "vitest";
import * as dropsRoute from "@/app/drops/route";
import * as limitsRoute from "@/app/limits/route";
import * as deployRoute from "@/app/deploy/route";
import { apiRequest, suiteContext } from "../support/context";
import { bearer } from "../support/accounts";
import { cliAgainstRoutes } from "../support/cli";
import { answerTeamRoute, teamKeyOf, teamWith } from "../support/teams";

// The command-line client acting as a team: `dropsite login --team SLUG --key <team key>` stores
// the team's key beside the person's own, and `--team SLUG` on any command uses it; without the
// flag the person's own key answers, so team and personal drops never mix.

const t = suiteContext({}, { freshLimiter: true });
const p = { params: Promise.resolve({}) };
const { cli } = cliAgainstRoutes("203.0.113.63", async (req, url) => {
  if (url.pathname === "/drops" && req.method === "GET") return dropsRoute.GET(req, p);
  if (url.pathname === "/limits" && req.method === "GET") return limitsRoute.GET(req, p);
  return answerTeamRoute(req, url);
});

async function deployWith(key: string): Promise<string> {
  const res = await deployRoute.POST(
    apiRequest("/deploy", {
      method: "POST",
      body: "<p>cli</p>",
      headers: { ...bearer(key), "content-type": "text/html" },
      ip: "198.51.100.201",
    }),
    p,
  );
  expect(res.status).toBe(200);
  return ((await res.json()) as { slug: string }).slug;
}

describe("dropsite --team", () => {
  it("login --team stores the team key; --team lists the team's drops, no flag the person's", async () => {
    const { slug, owner } = await teamWith(t.ctx, []);
    const teamKey = await teamKeyOf(t.ctx, owner, slug, "cli");
    const teamDrop = await deployWith(teamKey);
    const ownDrop = await deployWith(owner.apiKey);

    const missing = await cli(["list", "--team", slug, "--json"], owner.apiKey);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`No key stored for team ${slug}`);

    const login = await cli(["login", "--team", slug, "--key", teamKey]);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain(`Stored the key of team ${slug}`);

    const slugs = (out: string) => (JSON.parse(out) as { drops: { slug: string }[] }).drops.map((d) => d.slug);
    const asTeam = await cli(["list", "--team", slug, "--json"], owner.apiKey);
    expect(asTeam.code, asTeam.stderr).toBe(0);
    expect(slugs(asTeam.stdout)).toEqual([teamDrop]);
    const asPerson = await cli(["list", "--json"], owner.apiKey);
    expect(slugs(asPerson.stdout)).toContain(ownDrop);
    expect(slugs(asPerson.stdout)).not.toContain(teamDrop);

    const bad = await cli(["list", "--team", "Not A Slug"], owner.apiKey);
    expect(bad.code).toBe(2);
  });
});
