import { describe, expect, it } from "vitest";
import * as vanityRoute from "@/app/vanity/route";
import * as deployRoute from "@/app/deploy/route";
import { serveGET } from "../support/serve";
import { setPlan } from "@/lib/db/accounts";
import { vanityClaimResponseSchema, vanityResponseSchema } from "@/lib/schemas";
import { suiteContext, apiRequest, dropRequest } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";

// Vanity subdomains: one per Team account, first come first served, serving the account's named
// drops at <sub>--<name>.<SERVE_DOMAIN>.

const p = <P>(params: P) => ({ params: Promise.resolve(params) });
let ip = 0;
let subSeq = 0;
const freshSub = (prefix = "team") => `${prefix}-${++subSeq}-${Math.random().toString(36).slice(2, 6)}`;

const t = suiteContext(
  { BASE_URL: "https://app.example.test", SERVE_DOMAIN: "drops.localhost:3000" },
  { freshLimiter: true },
);

function claim(apiKey: string, body: unknown) {
  return vanityRoute.POST(
    apiRequest("/vanity", {
      method: "POST",
      headers: { ...bearer(apiKey), "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
    p({}),
  );
}
async function current(apiKey: string) {
  const res = await vanityRoute.GET(apiRequest("/vanity", { headers: bearer(apiKey) }), p({}));
  expect(res.status).toBe(200);
  return vanityResponseSchema.strict().parse(await res.json());
}
async function expectError(res: Response, status: number, code: string) {
  const body = await res.json();
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  return body as { error: string; code: string; hint?: string; upgrade_url?: string };
}
function deploy(apiKey: string, query: string, html: string) {
  ip++;
  return deployRoute.POST(
    apiRequest(`/deploy${query}`, {
      method: "POST",
      body: html,
      headers: { "content-type": "text/html", ...bearer(apiKey) },
      ip: `198.20.${ip >> 8}.${ip & 255}`,
    }),
    p({}),
  );
}
const visit = (label: string, path = "/") => serveGET(dropRequest(label, `/api/serve-drop${path}`));

describe("GET /vanity", () => {
  it("is null until the account claims a sub", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "team");
    expect(await current(apiKey)).toEqual({ sub: null });
    const sub = freshSub();
    expect((await claim(apiKey, { sub })).status).toBe(201);
    expect(await current(apiKey)).toEqual({ sub });
  });

  it("needs a credential", async () => {
    await expectError(await vanityRoute.GET(apiRequest("/vanity"), p({})), 401, "auth_required");
  });
});

describe("POST /vanity", () => {
  it("claims a sub for a Team account: 201 {sub, serve_base} with the scheme of BASE_URL", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "team");
    const res = await claim(apiKey, { sub: "acme" });
    expect(res.status).toBe(201);
    const body = vanityClaimResponseSchema.strict().parse(await res.json());
    expect(body).toEqual({ sub: "acme", serve_base: "https://acme--<name>.drops.localhost:3000/" });
  });

  it.each(["free", "pro"] as const)("a %s account gets 402 subscription_required with upgrade_url", async (plan) => {
    const { apiKey } = await accountWithKey(t.ctx, plan);
    const body = await expectError(await claim(apiKey, { sub: freshSub(plan) }), 402, "subscription_required");
    expect(body.upgrade_url).toMatch(/^https:\/\/app\.example\.test\//);
    expect(body.hint).toMatch(/team/i);
    expect(await current(apiKey)).toEqual({ sub: null });
  });

  it.each([
    ["too short", "ab"],
    ["too long", "a".repeat(21)],
    ["uppercase", "Acme"],
    ["a leading hyphen", "-acme"],
    ["a trailing hyphen", "acme-"],
    ["a double hyphen", "my--team"],
    ["a dot", "my.team"],
    ["reserved: www", "www"],
    ["reserved: api", "api"],
    ["reserved: docs", "docs"],
    ["a number", 12345],
    ["missing", undefined],
  ])("a sub that is %s answers 400 invalid_request", async (_, sub) => {
    const { apiKey } = await accountWithKey(t.ctx, "team");
    const body = await expectError(await claim(apiKey, sub === undefined ? {} : { sub }), 400, "invalid_request");
    expect(body.hint).toBeTruthy();
    expect(await current(apiKey)).toEqual({ sub: null });
  });

  it("a body that is not JSON answers 400", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "team");
    await expectError(await claim(apiKey, "sub=acme"), 400, "invalid_request");
  });

  it("the 3- and 20-character bounds are accepted", async () => {
    for (const sub of ["a1b", "abcdefghij0123456789"]) {
      const { apiKey } = await accountWithKey(t.ctx, "team");
      expect((await claim(apiKey, { sub })).status).toBe(201);
    }
  });

  it("a sub another account holds answers 409 conflict", async () => {
    const sub = freshSub();
    const first = await accountWithKey(t.ctx, "team");
    const second = await accountWithKey(t.ctx, "team");
    expect((await claim(first.apiKey, { sub })).status).toBe(201);
    await expectError(await claim(second.apiKey, { sub }), 409, "conflict");
    expect(await current(second.apiKey)).toEqual({ sub: null });
  });

  it("an account that already has a sub gets 409 for a second one (and for its own again)", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "team");
    const sub = freshSub();
    expect((await claim(apiKey, { sub })).status).toBe(201);
    await expectError(await claim(apiKey, { sub: freshSub() }), 409, "conflict");
    await expectError(await claim(apiKey, { sub }), 409, "conflict");
    expect(await current(apiKey)).toEqual({ sub });
  });

  it("two Team accounts claiming one sub at once: exactly one 201, one 409", async () => {
    for (let round = 0; round < 5; round++) {
      const sub = freshSub("race");
      const a = await accountWithKey(t.ctx, "team");
      const b = await accountWithKey(t.ctx, "team");
      const results = await Promise.all([claim(a.apiKey, { sub }), claim(b.apiKey, { sub })]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      const owners = [(await current(a.apiKey)).sub, (await current(b.apiKey)).sub];
      expect(owners.filter((s) => s === sub)).toHaveLength(1);
    }
  });

  it("one account claiming two subs at once ends up with exactly one", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "team");
    const subs = [freshSub("one"), freshSub("two")];
    const results = await Promise.all(subs.map((sub) => claim(apiKey, { sub })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(subs).toContain((await current(apiKey)).sub);
  });

  it("needs a credential", async () => {
    await expectError(
      await vanityRoute.POST(apiRequest("/vanity", { method: "POST", body: JSON.stringify({ sub: "nobody" }) }), p({})),
      401,
      "auth_required",
    );
  });
});

describe("serving <sub>--<name>", () => {
  it("serves the account's named drop at its vanity host, and nothing else", async () => {
    const owner = await accountWithKey(t.ctx, "team");
    const other = await accountWithKey(t.ctx, "team");
    const sub = freshSub("site");
    expect((await claim(owner.apiKey, { sub })).status).toBe(201);
    expect((await deploy(owner.apiKey, "?name=blog", "<h1>owner blog</h1>")).status).toBe(200);
    const plain = (await (await deploy(owner.apiKey, "", "<h1>unnamed</h1>")).json()) as { slug: string };
    expect((await deploy(other.apiKey, "?name=docs-site", "<h1>other's docs</h1>")).status).toBe(200);

    const res = await visit(`${sub}--blog`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await res.text()).toContain("owner blog");

    // The other account's name, an unknown name, and an unnamed drop's slug are 404 at this sub.
    expect((await visit(`${sub}--docs-site`)).status).toBe(404);
    expect((await visit(`${sub}--nothing`)).status).toBe(404);
    expect((await visit(`${sub}--${plain.slug}`)).status).toBe(404);
    // An unclaimed sub serves nothing.
    expect((await visit(`${freshSub("unclaimed")}--blog`)).status).toBe(404);
  });

  it("redeploying the name changes what the vanity host serves", async () => {
    const owner = await accountWithKey(t.ctx, "team");
    const sub = freshSub("re");
    expect((await claim(owner.apiKey, { sub })).status).toBe(201);
    await deploy(owner.apiKey, "?name=home", "<p>v1</p>");
    expect(await (await visit(`${sub}--home`)).text()).toContain("v1");
    await deploy(owner.apiKey, "?name=home", "<p>v2</p>");
    expect(await (await visit(`${sub}--home`)).text()).toContain("v2");
  });

  it("a reserved sub is refused even if a row held it", async () => {
    const owner = await accountWithKey(t.ctx, "team");
    await deploy(owner.apiKey, "?name=blog", "<h1>blog</h1>");
    // Write the reserved sub directly (a claim through the API is refused): the host still serves nothing.
    const { accounts } = await import("@/lib/db/schema");
    const { eq } = await import("drizzle-orm");
    await t.ctx.db.update(accounts).set({ vanitySub: "www" }).where(eq(accounts.id, owner.account.id));
    expect((await visit("www--blog")).status).toBe(404);
  });

  it("after a downgrade the claimed sub keeps serving existing named drops; a new claim needs Team", async () => {
    const owner = await accountWithKey(t.ctx, "team");
    const sub = freshSub("down");
    expect((await claim(owner.apiKey, { sub })).status).toBe(201);
    await deploy(owner.apiKey, "?name=keep", "<h1>kept</h1>");
    await setPlan(t.ctx.db, owner.account.id, "free");
    expect((await visit(`${sub}--keep`)).status).toBe(200);
    expect(await current(owner.apiKey)).toEqual({ sub });
    await expectError(await claim(owner.apiKey, { sub: freshSub() }), 402, "subscription_required");
  });
});
