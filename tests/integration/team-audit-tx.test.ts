import { afterEach, describe, expect, it } from "vitest";
import { and, eq, sql } from "drizzle-orm";
import * as domainsRoute from "@/app/domains/route";
import * as domainRoute from "@/app/domains/[hostname]/route";
import * as webhooksRoute from "@/app/webhooks/route";
import * as webhookRoute from "@/app/webhooks/[id]/route";
import { domains, teamAudit, webhooks } from "@/lib/db/schema";
import { apiRequest, suiteContext } from "../support/context";
import { bearer } from "../support/accounts";
import { deployAs, teamKeyOf, teamWith } from "../support/teams";

// A team's domain and webhook changes write their audit entry in the change's own transaction
// (lib/db/domains.ts, lib/db/webhooks.ts): when the entry cannot be written, the change does
// not happen either, so no committed change lacks its entry. The entry's insert is made to fail
// by a trigger on team_audit (the database refusing it, as a crash would lose it).

const t = suiteContext({ WEBHOOKS_ALLOW_PRIVATE: "true" }, { freshLimiter: true });
const p = <P>(params: P) => ({ params: Promise.resolve(params) });
const json = (key: string, body: unknown) => ({
  method: "POST",
  body: JSON.stringify(body),
  headers: { ...bearer(key), "content-type": "application/json" },
});

/** The team audit refuses entries of `action` until afterEach drops the trigger. */
async function refuseAudit(action: string) {
  await t.ctx.db.execute(
    sql.raw(
      `create or replace function refuse_team_audit() returns trigger language plpgsql as $$ begin if new.action = '${action}' then raise exception 'audit refused'; end if; return new; end $$`,
    ),
  );
  await t.ctx.db.execute(
    sql.raw(
      `create trigger refuse_team_audit before insert on team_audit for each row execute function refuse_team_audit()`,
    ),
  );
}

afterEach(async () => {
  await t.ctx.db.execute(sql.raw(`drop trigger if exists refuse_team_audit on team_audit`));
  await t.ctx.db.execute(sql.raw(`drop function if exists refuse_team_audit()`));
});

async function adminKey() {
  const { slug, people } = await teamWith(t.ctx, ["admin"]);
  const key = await teamKeyOf(t.ctx, people[0]!, slug);
  return { slug, key };
}

async function entries(action: string, target: string) {
  return t.ctx.db
    .select({ id: teamAudit.id })
    .from(teamAudit)
    .where(and(eq(teamAudit.action, action), eq(teamAudit.target, target)));
}

describe("a team's domain and webhook changes commit with their audit entry", () => {
  it("a domain whose audit entry fails is not added; added once the entry can be written", async () => {
    const { slug, key } = await adminKey();
    const made = (await deployAs(key)).body.slug!;
    const hostname = `www.${slug}.example.com`;
    await refuseAudit("domain.added");
    const refused = await domainsRoute.POST(apiRequest("/domains", json(key, { hostname, slug: made })), p({}));
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { code: string }).code).toBe("upstream_unavailable");
    expect(await t.ctx.db.select().from(domains).where(eq(domains.hostname, hostname))).toEqual([]);
    expect(await entries("domain.added", `domain:${hostname}`)).toEqual([]);

    // The removal too: a removal whose entry fails leaves the domain in place.
    await t.ctx.db.execute(sql.raw(`drop trigger refuse_team_audit on team_audit`));
    const added = await domainsRoute.POST(apiRequest("/domains", json(key, { hostname, slug: made })), p({}));
    expect(added.status, await added.clone().text()).toBe(201);
    expect(await entries("domain.added", `domain:${hostname}`)).toHaveLength(1);
    await refuseAudit("domain.removed");
    const kept = await domainRoute.DELETE(
      apiRequest(`/domains/${hostname}`, { method: "DELETE", headers: bearer(key) }),
      p({ hostname }),
    );
    expect(kept.status).toBe(503);
    expect(await t.ctx.db.select().from(domains).where(eq(domains.hostname, hostname))).toHaveLength(1);
    expect(await entries("domain.removed", `domain:${hostname}`)).toEqual([]);
  });

  it("a webhook whose audit entry fails is not added, and not removed", async () => {
    const { key } = await adminKey();
    const url = "http://127.0.0.1:9/hook";
    await refuseAudit("webhook.added");
    const refused = await webhooksRoute.POST(apiRequest("/webhooks", json(key, { url })), p({}));
    expect(refused.status).toBe(503);
    expect(await t.ctx.db.select().from(webhooks).where(eq(webhooks.url, url))).toEqual([]);

    await t.ctx.db.execute(sql.raw(`drop trigger refuse_team_audit on team_audit`));
    const added = await webhooksRoute.POST(apiRequest("/webhooks", json(key, { url })), p({}));
    expect(added.status, await added.clone().text()).toBe(201);
    const id = ((await added.json()) as { id: string }).id;
    expect(await entries("webhook.added", `webhook:${id}`)).toHaveLength(1);

    await refuseAudit("webhook.removed");
    const kept = await webhookRoute.DELETE(
      apiRequest(`/webhooks/${id}`, { method: "DELETE", headers: bearer(key) }),
      p({ id }),
    );
    expect(kept.status).toBe(503);
    expect(await t.ctx.db.select().from(webhooks).where(eq(webhooks.id, id))).toHaveLength(1);
    expect(await entries("webhook.removed", `webhook:${id}`)).toEqual([]);
  });
});
