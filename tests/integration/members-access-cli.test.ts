import { describe, expect, it } from "vitest";
import * as accessRoute from "@/app/drops/[slug]/access/route";
import { findDropAccess } from "@/lib/db/access";
import { findDropBySlug } from "@/lib/db/queries";
import { createDrop } from "@/lib/deploy/store";
import { cliAgainstRoutes } from "../support/cli";
import { suiteContext } from "../support/context";
import { verifiedPerson } from "../support/teams";

// `dropsite access <slug> members` (cli/dist/dropsite.mjs) against PUT /drops/{slug}/access of
// this suite's context: the word after the slug sends {"mode": "members"}; a person's own drop
// is refused with the service's 400 and keeps its access; a malformed line sends nothing.

const t = suiteContext({}, { freshLimiter: true });
const sent: string[] = [];
const { cli } = cliAgainstRoutes("203.0.113.62", async (req, url) => {
  const m = /^\/drops\/([^/]+)\/access$/.exec(url.pathname);
  if (!m || req.method !== "PUT") return null;
  sent.push(await req.clone().text());
  return accessRoute.PUT(req, { params: Promise.resolve({ slug: m[1]! }) });
});

describe("dropsite access <slug> members", () => {
  it("sends mode members; a person's own drop answers invalid_request and keeps its access", async () => {
    const person = await verifiedPerson(t.ctx, "team");
    const d = await createDrop(
      t.ctx,
      { account: person.account, via: "api_key", credentialKey: `key:${person.keyId}` },
      { files: [{ path: "index.html", bytes: new TextEncoder().encode("<p>hi</p>") }], ttl: null },
    );
    const id = (await findDropBySlug(t.ctx.db, d.slug))!.id;
    const before = await findDropAccess(t.ctx.db, id);
    sent.splice(0);
    const r = await cli(["access", d.slug, "members"], person.apiKey);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("(invalid_request, HTTP 400)");
    expect(r.stderr).toContain("belongs to no team");
    expect(sent.map((b) => JSON.parse(b) as unknown)).toEqual([{ mode: "members" }]);
    expect(await findDropAccess(t.ctx.db, id)).toEqual(before);
  });

  it("members with a flag, another word or no slug is a usage error (exit 2) and sends nothing", async () => {
    const person = await verifiedPerson(t.ctx, "team");
    sent.splice(0);
    for (const args of [
      ["access", "abc", "members", "--public"],
      ["access", "abc", "members", "--password-stdin"],
      ["access", "abc", "everyone"],
      ["access", "members"],
    ]) {
      const r = await cli(args, person.apiKey);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toContain(
        "usage: dropsite access <slug> --password-stdin | --public | --emails a@x.org,@client.com | members",
      );
    }
    expect(sent).toEqual([]);
  });
});
