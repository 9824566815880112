import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as deployRoute from "@/app/deploy/route";
import * as appendRoute from "@/app/deploy/[slug]/route";
import * as dropsRoute from "@/app/drops/route";
import * as dropRoute from "@/app/drops/[slug]/route";
import * as keysRoute from "@/app/keys/route";
import * as keyRoute from "@/app/keys/[id]/route";
import * as claimRoute from "@/app/claim/route";
import { setPlan } from "@/lib/db/accounts";
import { freshLimiter, apiRequest, makeTestContext, type TestContext } from "../support/context";
import { bearer } from "../support/accounts";
import { startOidcProvider, type OidcHarness } from "../support/oidc";

// Every account route × every kind of credential, with the status and code the contract gives.

let t: TestContext;
let oidc: OidcHarness;
const p = <P>(params: P) => ({ params: Promise.resolve(params) });

interface Fixture {
  ownerToken: string;
  ownerKey: string;
  ownerKeyId: string;
  otherKey: string;
  revokedKey: string;
  slug: string;
  claim: { slug: string; claim_token: string };
}
let f: Fixture;

const iat = () => new Date(t.clock.now);

async function mintKeyWith(token: string): Promise<{ apiKey: string; keyId: string; accountId: string }> {
  const res = await keysRoute.POST(apiRequest("/keys", { method: "POST", headers: bearer(token) }), p({}));
  expect(res.status).toBe(201);
  return res.json();
}

beforeAll(async () => {
  oidc = await startOidcProvider();
  t = await makeTestContext({ OIDC_ISSUER: oidc.issuer, OIDC_CLIENT_ID: oidc.clientId });
  const ownerToken = await oidc.mintIdToken({ sub: "owner", email: "owner@example.test", iat: iat() });
  const otherToken = await oidc.mintIdToken({ sub: "other", iat: iat() });
  const owner = await mintKeyWith(ownerToken);
  const other = await mintKeyWith(otherToken);
  const revoked = await mintKeyWith(ownerToken);
  await keyRoute.DELETE(
    apiRequest(`/keys/${revoked.keyId}`, { method: "DELETE", headers: bearer(owner.apiKey) }),
    p({ id: revoked.keyId }),
  );
  await setPlan(t.ctx.db, owner.accountId, "pro");
  const dep = await deployRoute.POST(
    apiRequest("/deploy?name=owned", {
      method: "POST",
      body: "<p>owned</p>",
      headers: { ...bearer(owner.apiKey), "content-type": "text/html" },
    }),
    p({}),
  );
  expect(dep.status).toBe(200);
  f = {
    ownerToken,
    ownerKey: owner.apiKey,
    ownerKeyId: owner.keyId,
    otherKey: other.apiKey,
    revokedKey: revoked.apiKey,
    slug: (await dep.json()).slug,
    claim: { slug: "", claim_token: "" },
  };
});
afterAll(async () => {
  await t?.close();
  await oidc?.close();
});
beforeEach(async () => {
  await freshLimiter(t);
});

type Cred = () => Promise<string | null>;
const claims = () => oidc.idTokenClaims({ sub: "owner", iat: iat() });
const badCredentials: [string, Cred][] = [
  ["no credential", async () => null],
  ["a malformed header value", async () => "not a credential"],
  ["an unknown key", async () => `sp_${"A".repeat(43)}`],
  ["a key of the wrong length", async () => `sp_${"A".repeat(40)}`],
  ["a revoked key", async () => f.revokedKey],
  [
    "an expired ID token",
    async () => oidc.mintIdToken({ sub: "owner", iat: new Date(t.clock.now - 7200_000), expiresIn: 3600 }),
  ],
  [
    "an ID token issued more than an hour ago, though not yet expired",
    async () => oidc.mintIdToken({ sub: "owner", iat: new Date(t.clock.now - 90 * 60_000), expiresIn: 3 * 3600 }),
  ],
  ["an ID token for another audience", async () => oidc.mintIdToken({ sub: "owner", aud: "someone-else", iat: iat() })],
  [
    "an ID token from another issuer",
    async () => oidc.mintIdToken({ sub: "owner", iss: "http://evil.test", iat: iat() }),
  ],
  ["an alg:none token", async () => oidc.unsignedToken(claims())],
  ["an HS256 token keyed with the public key", async () => oidc.hs256WithPublicKey(claims())],
  ["a token signed by a foreign key with the same kid", async () => oidc.foreignKeyToken(claims())],
  ["an RS512 token (only RS256 is accepted)", async () => oidc.mintIdToken({ sub: "owner", alg: "RS512", iat: iat() })],
];

function headers(cred: string | null, extra: Record<string, string> = {}): Record<string, string> {
  return cred === null ? extra : { ...extra, authorization: cred.includes(" ") ? cred : `Bearer ${cred}` };
}

// Each route: how to call it with a credential, and what the owner's valid credential gets.
const routes: [string, (cred: string | null) => Promise<Response>][] = [
  ["GET /drops", (c) => dropsRoute.GET(apiRequest("/drops", { headers: headers(c) }), p({}))],
  [
    "DELETE /drops/{slug}",
    (c) =>
      dropRoute.DELETE(apiRequest(`/drops/nosuch`, { method: "DELETE", headers: headers(c) }), p({ slug: "nosuch" })),
  ],
  [
    "POST /deploy/{slug}",
    (c) =>
      appendRoute.POST(
        apiRequest(`/deploy/${f.slug}`, {
          method: "POST",
          body: JSON.stringify({ files: { [`x${Math.random()}.txt`]: "x" } }),
          headers: headers(c, { "content-type": "application/json" }),
        }),
        p({ slug: f.slug }),
      ),
  ],
  ["POST /keys", (c) => keysRoute.POST(apiRequest("/keys", { method: "POST", headers: headers(c) }), p({}))],
  ["GET /keys", (c) => keysRoute.GET(apiRequest("/keys", { headers: headers(c) }), p({}))],
  [
    "DELETE /keys/{id}",
    (c) =>
      keyRoute.DELETE(
        apiRequest(`/keys/${"0".repeat(64)}`, { method: "DELETE", headers: headers(c) }),
        p({ id: "0".repeat(64) }),
      ),
  ],
  [
    "POST /claim",
    (c) =>
      claimRoute.POST(
        apiRequest("/claim", {
          method: "POST",
          body: JSON.stringify({ slug: "x", claim_token: "y" }),
          headers: headers(c),
        }),
        p({}),
      ),
  ],
];

describe.each(routes)("%s", (_route, call) => {
  it.each(badCredentials)("%s → 401 auth_required with hint and docs_url", async (_n, cred) => {
    const res = await call(await cred());
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(body.code).toBe("auth_required");
    expect(body.hint).toBeTruthy();
    expect(body.docs_url).toMatch(/\/docs#authentication$/);
  });
});

describe("valid credentials", () => {
  it("a valid key and a valid ID token both work on account routes", async () => {
    for (const cred of [f.ownerKey, f.ownerToken]) {
      const res = await dropsRoute.GET(apiRequest("/drops", { headers: headers(cred) }), p({}));
      expect(res.status).toBe(200);
      expect((await res.json()).drops.map((d: { slug: string }) => d.slug)).toContain(f.slug);
      const append = await routes[2]![1](cred);
      expect(append.status).toBe(200);
    }
  });
  it("only an ID token can mint keys; a key answers 401", async () => {
    expect(
      (await keysRoute.POST(apiRequest("/keys", { method: "POST", headers: headers(f.ownerKey) }), p({}))).status,
    ).toBe(401);
    const res = await keysRoute.POST(
      apiRequest("/keys", {
        method: "POST",
        body: JSON.stringify({ note: "ci" }),
        headers: headers(f.ownerToken, { "content-type": "application/json" }),
      }),
      p({}),
    );
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(["accountId", "apiKey", "keyId", "note"]);
    expect(body.apiKey).toMatch(/^sp_[A-Za-z0-9_-]{43}$/);
    expect(body.keyId).toMatch(/^[0-9a-f]{64}$/);
    expect(body.note).toBe("ci");
    const { createHash } = await import("node:crypto");
    expect(createHash("sha256").update(body.apiKey).digest("hex")).toBe(body.keyId);
  });
  it("the same (issuer, subject) is one account however it authenticates", async () => {
    const viaToken = await (await keysRoute.GET(apiRequest("/keys", { headers: headers(f.ownerToken) }), p({}))).json();
    const viaKey = await (await keysRoute.GET(apiRequest("/keys", { headers: headers(f.ownerKey) }), p({}))).json();
    expect(viaToken).toEqual(viaKey);
    expect(viaKey.keys.map((k: { keyId: string }) => k.keyId)).toContain(f.ownerKeyId);
  });
});

describe("another account's key", () => {
  it("sees none of the owner's drops and gets 404 for them", async () => {
    const list = await (await dropsRoute.GET(apiRequest("/drops", { headers: headers(f.otherKey) }), p({}))).json();
    expect(list.drops.map((d: { slug: string }) => d.slug)).not.toContain(f.slug);
    const del = await dropRoute.DELETE(
      apiRequest(`/drops/${f.slug}`, { method: "DELETE", headers: headers(f.otherKey) }),
      p({ slug: f.slug }),
    );
    expect(del.status).toBe(404);
    expect((await del.json()).code).toBe("not_found");
    const revoke = await keyRoute.DELETE(
      apiRequest(`/keys/${f.ownerKeyId}`, { method: "DELETE", headers: headers(f.otherKey) }),
      p({ id: f.ownerKeyId }),
    );
    expect(revoke.status).toBe(404);
    // The other account is free: appending answers 402 before ownership is looked at…
    const append = await routes[2]![1](f.otherKey);
    expect(append.status).toBe(402);
    // …and the owner's key still works.
    expect((await dropsRoute.GET(apiRequest("/drops", { headers: headers(f.ownerKey) }), p({}))).status).toBe(200);
  });
});

describe("POST /keys rate limit", () => {
  it("allows 5 mints a minute per account, then 429 with Retry-After", async () => {
    const token = await oidc.mintIdToken({ sub: "minter", iat: iat() });
    for (let i = 0; i < 5; i++)
      expect(
        (await keysRoute.POST(apiRequest("/keys", { method: "POST", headers: headers(token) }), p({}))).status,
      ).toBe(201);
    const res = await keysRoute.POST(apiRequest("/keys", { method: "POST", headers: headers(token) }), p({}));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    // Retry-After is the limiter's real wait, not the whole window.
    t.clock.advance(25);
    const later = await keysRoute.POST(apiRequest("/keys", { method: "POST", headers: headers(token) }), p({}));
    expect(later.status).toBe(429);
    expect(later.headers.get("retry-after")).toBe("35");
  });
  it("at most 25 live keys per account (400 with a hint past it)", async () => {
    const token = await oidc.mintIdToken({ sub: "hoarder", iat: iat() });
    for (let i = 0; i < 25; i++) {
      if (i % 5 === 0) t.clock.advance(61);
      expect(
        (await keysRoute.POST(apiRequest("/keys", { method: "POST", headers: headers(token) }), p({}))).status,
      ).toBe(201);
    }
    t.clock.advance(61);
    const res = await keysRoute.POST(apiRequest("/keys", { method: "POST", headers: headers(token) }), p({}));
    expect(res.status).toBe(400);
    expect((await res.json()).hint).toBeTruthy();
  });
});
