import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { serveRewritten } from "@/lib/plane/node";
import { DROP_HOST_HEADER, SERVE_PREFIX } from "@/lib/serve/internal";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { afterAll, describe, expect, it } from "vitest";
import * as domainsRoute from "@/app/domains/route";
import * as domainRoute from "@/app/domains/[hostname]/route";
import * as verifyRoute from "@/app/domains/[hostname]/verify/route";
import * as tlsRoute from "@/app/domains/tls-allowed/route";
import * as deployRoute from "@/app/deploy/route";
import * as limitsRoute from "@/app/limits/route";
import * as rollbackRoute from "@/app/drops/[slug]/rollback/route";
import * as dropRoute from "@/app/drops/[slug]/route";
import { detachAccountDomains } from "@/lib/domains/detach";
import type { AppContext } from "@/lib/context";
import { createDrop } from "@/lib/deploy/store";
import { setAccess } from "@/lib/drops/access";
import { createDomain, deleteDomain, verifyDomain } from "@/lib/domains/manage";
import { DOMAIN_TXT_GRACE_SECONDS, limits } from "@/lib/plans";
import { runCleanup } from "@/lib/drops/lifecycle";
import { domainSchema, domainVerifyResponseSchema } from "@/lib/schemas";
import { MANIFEST_REVALIDATE_MS } from "@/lib/serve/cache";
import { resolveHost } from "@/lib/serve/host";
import { serveDrop } from "@/lib/serve/serve";
import { accountWithKey, bearer } from "../support/accounts";
import { apiRequest, suiteContext, TEST_BASE_URL, twoInstancesSuite } from "../support/context";
import { startDnsStandin } from "../support/dns-standin";
import { startDataPlane, type RunningPlane } from "../support/plane";
import { registerSecret } from "../support/secrets";
import { serveGET } from "../support/serve";
import { events } from "@/lib/db/schema";
import { and, eq } from "drizzle-orm";
import { startVercelStandin } from "../support/vercel-standin";
import { connectInProcess, resultText, type CallResult } from "../support/mcp";
import type { Client } from "@modelcontextprotocol/client";

// Custom domains: POST/GET/DELETE /domains and verify against a local DNS server whose TXT
// records the test sets; serving on `Host: <hostname>` (the serve route and the data plane);
// Vercel attach and detach against a local stand-in of its API; Caddy's tls-allowed.

const dns = await startDnsStandin();
const vercel = await startVercelStandin();
registerSecret("VERCEL_TOKEN", vercel.token);
const SERVE = "drops.localhost:3000";
const t = suiteContext(
  {
    BASE_URL: "https://app.example.test",
    SERVE_DOMAIN: SERVE,
    DNS_SERVERS: dns.servers,
    VERCEL_API_URL: vercel.url,
    VERCEL_TOKEN: vercel.token,
    VERCEL_PROJECT_ID: vercel.projectId,
    VERCEL_TEAM_ID: "team_dropsite",
  },
  { freshLimiter: true },
);
afterAll(async () => {
  await dns.close();
  await vercel.close();
});

const p = <P>(params: P) => ({ params: Promise.resolve(params) });
let ip = 0;
let seq = 0;
const freshHost = (base = "example.net") => `site${++seq}-${Math.random().toString(36).slice(2, 6)}.${base}`;
const json = (apiKey: string, body: unknown) => ({
  method: "POST",
  headers: { ...bearer(apiKey), "content-type": "application/json" },
  body: JSON.stringify(body),
});

const add = (apiKey: string, body: unknown) => domainsRoute.POST(apiRequest("/domains", json(apiKey, body)), p({}));
const list = (apiKey: string) => domainsRoute.GET(apiRequest("/domains", { headers: bearer(apiKey) }), p({}));
const verify = (apiKey: string, hostname: string) =>
  verifyRoute.POST(
    apiRequest(`/domains/${hostname}/verify`, { method: "POST", headers: bearer(apiKey) }),
    p({ hostname }),
  );
const remove = (apiKey: string, hostname: string) =>
  domainRoute.DELETE(
    apiRequest(`/domains/${hostname}`, { method: "DELETE", headers: bearer(apiKey) }),
    p({ hostname }),
  );
const tlsAllowed = (domain: string) =>
  tlsRoute.GET(apiRequest(`/domains/tls-allowed?domain=${encodeURIComponent(domain)}`), p({}));

async function expectError(res: Response, status: number, code: string) {
  const body = await res.json();
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  return body as { error: string; code: string };
}
async function deploy(apiKey: string, query: string, html: string): Promise<string> {
  ip++;
  const res = await deployRoute.POST(
    apiRequest(`/deploy${query}`, {
      method: "POST",
      body: html,
      headers: { "content-type": "text/html", ...bearer(apiKey) },
      ip: `198.21.${ip >> 8}.${ip & 255}`,
    }),
    p({}),
  );
  expect(res.status).toBe(200);
  return ((await res.json()) as { slug: string }).slug;
}
/** A request on a custom domain, as the serve route receives it. */
function visit(host: string, pathname = "/", headers: Record<string, string> = {}) {
  return serveGET(new Request(`http://${host}/api/serve-drop${pathname}`, { headers: { ...headers, host } }));
}
async function team() {
  return accountWithKey(t.ctx, "team");
}
/** A Team account with a drop and an active domain on it. */
async function activeDomain(html = "<h1>on my domain</h1>", name?: string) {
  const owner = await team();
  const slug = await deploy(owner.apiKey, name ? `?name=${name}` : "", html);
  const hostname = freshHost();
  const created = domainSchema.parse(await (await add(owner.apiKey, { hostname, slug })).json());
  dns.setTxt(created.verification.name, [created.verification.value]);
  expect((await (await verify(owner.apiKey, hostname)).json()).status).toBe("active");
  return { owner, slug, hostname };
}

describe("the domain.verified event", () => {
  it("is recorded once, in the verification's transaction, when a pending domain becomes active; a verify of an active domain records none", async () => {
    const { owner, slug, hostname } = await activeDomain();
    const recorded = () =>
      t.ctx.db
        .select()
        .from(events)
        .where(and(eq(events.accountId, owner.account.id), eq(events.type, "domain.verified")));
    const first = await recorded();
    expect(first.map((e) => e.data)).toEqual([{ slug, domain: hostname }]);
    expect((await (await verify(owner.apiKey, hostname)).json()).status).toBe("active");
    expect(await recorded()).toEqual(first);
  });
});

describe("POST /domains", () => {
  it("answers 201 with the pending domain, the TXT record to publish and the CNAME target", async () => {
    const { apiKey } = await team();
    const slug = await deploy(apiKey, "", "<p>x</p>");
    const res = await add(apiKey, { hostname: "Docs.Example.COM.", slug });
    expect(res.status).toBe(201);
    const body = domainSchema.strict().parse(await res.json());
    expect(body).toMatchObject({
      hostname: "docs.example.com",
      slug,
      status: "pending",
      verification: { type: "TXT", name: "_dropsite-challenge.docs.example.com" },
      target: { type: "CNAME", value: `${slug}.drops.localhost` },
      verified_at: null,
    });
    expect(body.verification.value).toMatch(/^dropsite-verify=[A-Za-z0-9_-]{24}$/);
    const listed = await (await list(apiKey)).json();
    expect(listed).toEqual({ domains: [body] });
  });

  it("stores an internationalised name as punycode, so both spellings are one domain", async () => {
    const a = await team();
    const slug = await deploy(a.apiKey, "", "<p>x</p>");
    const res = await add(a.apiKey, { hostname: "bücher.example.org", slug });
    expect(res.status).toBe(201);
    expect((await res.json()).hostname).toBe("xn--bcher-kva.example.org");
    const b = await team();
    const other = await deploy(b.apiKey, "", "<p>y</p>");
    await expectError(await add(b.apiKey, { hostname: "XN--BCHER-KVA.example.org", slug: other }), 409, "conflict");
  });

  it.each([
    ["the app's host", "app.example.test"],
    ["the serve domain", "drops.localhost"],
    ["a name under the serve domain", "abc.drops.localhost"],
    ["an IPv4 literal", "192.0.2.1"],
    ["an IPv6 literal", "[2001:db8::1]"],
    ["a shorthand IPv4", "0x7f.1"],
    ["a single label", "intranet"],
    ["localhost", "localhost"],
    ["a name under localhost", "x.localhost"],
    [
      "a name over 253 characters",
      `${"a".repeat(60)}.${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(60)}.example.com`,
    ],
    ["a label over 63 characters", `${"a".repeat(64)}.example.com`],
    ["a wildcard", "*.example.com"],
    ["a port", "example.com:8080"],
    ["a URL", "https://example.com/"],
    ["an empty label", "a..example.com"],
    ["an underscore", "a_b.example.com"],
    ["an empty string", ""],
  ])("refuses %s: 400 invalid_request, nothing stored", async (_name, hostname) => {
    const { apiKey } = await team();
    const slug = await deploy(apiKey, "", "<p>x</p>");
    await expectError(await add(apiKey, { hostname, slug }), 400, "invalid_request");
    expect(await (await list(apiKey)).json()).toEqual({ domains: [] });
  });

  it("accepts names of exactly 253 characters, labels of 63, and reserved TLDs", async () => {
    const { apiKey } = await team();
    const slug = await deploy(apiKey, "", "<p>x</p>");
    const long = `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(56)}.test`;
    expect(long.length).toBe(253);
    expect((await add(apiKey, { hostname: long, slug })).status).toBe(201);
    expect((await add(apiKey, { hostname: "my-site.test", slug })).status).toBe(201);
  });

  it("answers 409 for a hostname another account holds, and for one this account holds", async () => {
    const a = await team();
    const b = await team();
    const hostname = freshHost();
    expect((await add(a.apiKey, { hostname, slug: await deploy(a.apiKey, "", "a") })).status).toBe(201);
    await expectError(await add(b.apiKey, { hostname, slug: await deploy(b.apiKey, "", "b") }), 409, "conflict");
    await expectError(await add(a.apiKey, { hostname, slug: await deploy(a.apiKey, "", "c") }), 409, "conflict");
    expect((await (await list(b.apiKey)).json()).domains).toEqual([]);
  });

  it("answers 404 for a slug that is anonymous, another account's or absent", async () => {
    const { apiKey } = await team();
    const other = await team();
    ip++;
    const anon = await deployRoute.POST(
      apiRequest("/deploy", {
        method: "POST",
        body: "<p>anon</p>",
        headers: { "content-type": "text/html" },
        ip: `198.22.0.${ip & 255}`,
      }),
      p({}),
    );
    const anonSlug = ((await anon.json()) as { slug: string }).slug;
    await expectError(await add(apiKey, { hostname: freshHost(), slug: anonSlug }), 404, "not_found");
    await expectError(
      await add(apiKey, { hostname: freshHost(), slug: await deploy(other.apiKey, "", "theirs") }),
      404,
      "not_found",
    );
    await expectError(await add(apiKey, { hostname: freshHost(), slug: "aaaaaaaaaaaaaaaaaaaa" }), 404, "not_found");
    expect((await (await list(apiKey)).json()).domains).toEqual([]);
  });

  it("is the Team plan's: 402 with upgrade_url on free and pro", async () => {
    for (const plan of ["free", "pro"] as const) {
      const { apiKey } = await accountWithKey(t.ctx, plan);
      const body = await expectError(
        await add(apiKey, { hostname: freshHost(), slug: "aaaaaaaaaaaaaaaaaaaa" }),
        402,
        "subscription_required",
      );
      expect(body).toHaveProperty("upgrade_url");
    }
  });

  it("caps a Team account at the plan's number of domains, which GET /limits reports", async () => {
    const { apiKey, account } = await team();
    const res = await limitsRoute.GET(apiRequest("/limits", { headers: bearer(apiKey) }), p({}));
    expect((await res.json()).limits.max_domains).toBe(limits.team.maxDomains);
    const slug = await deploy(apiKey, "", "<p>x</p>");
    for (let i = 0; i < limits.team.maxDomains; i++)
      await createDomain(t.ctx, account, { hostname: `d${i}.cap.example`, slug });
    const body = await expectError(
      await add(apiKey, { hostname: "one-more.cap.example", slug }),
      400,
      "invalid_request",
    );
    expect(body).toMatchObject({ limit: "max_domains", allowed: limits.team.maxDomains });
    expect((await (await list(apiKey)).json()).domains).toHaveLength(limits.team.maxDomains);
  });

  it("needs a credential", async () => {
    await expectError(await domainsRoute.GET(apiRequest("/domains"), p({})), 401, "auth_required");
    await expectError(
      await domainsRoute.POST(apiRequest("/domains", { method: "POST", body: "{}" }), p({})),
      401,
      "auth_required",
    );
  });
});

describe("POST /domains/{hostname}/verify", () => {
  it("stays pending with what the look-up found until the TXT record holds the value; then active", async () => {
    const { apiKey } = await team();
    const slug = await deploy(apiKey, "", "<p>x</p>");
    const hostname = freshHost();
    const created = domainSchema.parse(await (await add(apiKey, { hostname, slug })).json());
    const before = domainVerifyResponseSchema.strict().parse(await (await verify(apiKey, hostname)).json());
    expect(before).toMatchObject({
      status: "pending",
      checks: [{ type: "TXT", name: created.verification.name, ok: false, found: [] }],
    });
    expect(before.vercel).toBeUndefined();
    // A value of another domain is not this one's.
    const other = domainSchema.parse(await (await add(apiKey, { hostname: freshHost(), slug })).json());
    dns.setTxt(created.verification.name, [other.verification.value, "v=spf1 -all"]);
    const wrong = await (await verify(apiKey, hostname)).json();
    expect(wrong).toMatchObject({
      status: "pending",
      checks: [{ ok: false, found: [other.verification.value, "v=spf1 -all"] }],
    });
    dns.setTxt(created.verification.name, ["v=spf1 -all", created.verification.value]);
    const res = await verify(apiKey, hostname.toUpperCase());
    expect(res.status).toBe(200);
    const after = domainVerifyResponseSchema.strict().parse(await res.json());
    expect(after).toMatchObject({ hostname, status: "active", checks: [{ ok: true }] });
    expect(after.verified_at).toBe(new Date(t.clock.now).toISOString());
    expect(
      (await (await list(apiKey)).json()).domains.find((d: { hostname: string }) => d.hostname === hostname),
    ).toMatchObject({ status: "active" });
    expect(dns.queries).toContain(`TXT ${created.verification.name}`);
  });

  it("answers 404 for another account's domain (pending or active) and for an unknown one", async () => {
    const { owner, hostname } = await activeDomain();
    const stranger = await team();
    await expectError(await verify(stranger.apiKey, hostname), 404, "not_found");
    await expectError(await remove(stranger.apiKey, hostname), 404, "not_found");
    const slug = await deploy(owner.apiKey, "", "<p>x</p>");
    const pending = freshHost();
    const created = domainSchema.parse(await (await add(owner.apiKey, { hostname: pending, slug })).json());
    dns.setTxt(created.verification.name, [created.verification.value]);
    await expectError(await verify(stranger.apiKey, pending), 404, "not_found");
    expect(
      (await (await list(owner.apiKey)).json()).domains.find((d: { hostname: string }) => d.hostname === pending)
        .status,
    ).toBe("pending");
    await expectError(await verify(owner.apiKey, "nothing.example.net"), 404, "not_found");
    await expectError(await verify(owner.apiKey, "not a host"), 404, "not_found");
  });
});

describe("serving on a custom domain", () => {
  it("create → pending (404 page) → TXT → verify → served byte-exact, with or without a port → deleted → 404 page", async () => {
    const owner = await team();
    const html = "<!doctype html><h1>Docs ✓</h1>\n";
    const slug = await deploy(owner.apiKey, "", html);
    const hostname = freshHost();
    const created = domainSchema.parse(await (await add(owner.apiKey, { hostname, slug })).json());
    const pending = await visit(hostname);
    expect(pending.status).toBe(404);
    expect(await pending.text()).toContain("There is nothing at this address.");
    dns.setTxt(created.verification.name, [created.verification.value]);
    expect((await (await verify(owner.apiKey, hostname)).json()).status).toBe("active");
    for (const host of [hostname, `${hostname}:443`, `${hostname.toUpperCase()}.:8443`]) {
      const res = await visit(host);
      expect(res.status).toBe(200);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(new TextEncoder().encode(html));
    }
    const onSlug = await serveGET(
      new Request(`http://${slug}.${SERVE}/api/serve-drop/`, { headers: { host: `${slug}.${SERVE}` } }),
    );
    const onDomain = await visit(hostname);
    expect(onDomain.headers.get("etag")).toBe(onSlug.headers.get("etag"));
    expect(onDomain.headers.get("cache-control")).toBe(onSlug.headers.get("cache-control"));
    expect((await visit(hostname, "/", { range: "bytes=0-4" })).status).toBe(206);
    expect((await remove(owner.apiKey, hostname)).status).toBe(200);
    const gone = await visit(hostname);
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain("There is nothing at this address.");
    expect((await (await list(owner.apiKey)).json()).domains).toEqual([]);
  });

  it("an unknown hostname gets the 404 page, never the app; IP addresses and localhost stay the app's", () => {
    const cfg = { serveDomain: SERVE, appHost: new URL(TEST_BASE_URL).host };
    expect(resolveHost("unknown.example.org", cfg)).toMatchObject({ kind: "custom", hostname: "unknown.example.org" });
    expect(resolveHost("127.0.0.1:3000", cfg).kind).toBe("app");
    expect(resolveHost("localhost:3000", cfg).kind).toBe("app");
  });

  it("a protected drop stays protected on its domain", async () => {
    const { owner, slug, hostname } = await activeDomain("<p>secret words</p>");
    await setAccess(t.ctx, owner.account, slug, { mode: "password", password: "correct horse" });
    const res = await visit(hostname);
    expect(res.status).toBe(401);
    const text = await res.text();
    expect(text).not.toContain("secret words");
    expect(res.headers.get("cache-control")).toBe("private, no-store");
  });

  it("a named drop keeps its domain across a replace and a rollback", async () => {
    const { owner, slug, hostname } = await activeDomain("<p>v1</p>", `named${++seq}`);
    const name = (await t.ctx.db.query.drops.findFirst({ where: (d, { eq }) => eq(d.slug, slug) }))!.name!;
    expect(await deploy(owner.apiKey, `?name=${name}`, "<p>v2</p>")).toBe(slug);
    expect(await (await visit(hostname)).text()).toBe("<p>v2</p>");
    const rb = await rollbackRoute.POST(
      apiRequest(`/drops/${slug}/rollback`, json(owner.apiKey, { version: 1 })),
      p({ slug }),
    );
    expect(rb.status).toBe(200);
    expect(await (await visit(hostname)).text()).toBe("<p>v1</p>");
  });

  it("the serve route behind Next (pages/api/serve-drop, where proxy.ts rewrites) serves an active domain and the 404 page for an unknown one", async () => {
    const { hostname } = await activeDomain("<p>next path</p>");
    const server = createServer((req, res) => void serveRewritten(req, res));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    const get = (host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          {
            host: "127.0.0.1",
            port,
            path: `${SERVE_PREFIX}/`,
            headers: { host: "internal.example", [DROP_HOST_HEADER]: host },
          },
          (res) => {
            let body = "";
            res
              .setEncoding("utf8")
              .on("data", (c: string) => (body += c))
              .on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on("error", reject).end();
      });
    try {
      expect(await get(`${hostname}:443`)).toEqual({ status: 200, body: "<p>next path</p>" });
      expect((await get("unknown.example.org")).status).toBe(404);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it("the data plane serves an active domain on its Host header and the 404 page for a pending one", async () => {
    const { owner, hostname } = await activeDomain("<p>plane</p>");
    const pending = freshHost();
    await add(owner.apiKey, { hostname: pending, slug: await deploy(owner.apiKey, "", "<p>no</p>") });
    let plane: RunningPlane | undefined;
    try {
      plane = await startDataPlane();
      const get = (host: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = httpRequest({ host: "127.0.0.1", port: plane!.port, path: "/", headers: { host } }, (res) => {
            let body = "";
            res
              .setEncoding("utf8")
              .on("data", (c: string) => (body += c))
              .on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          });
          req.on("error", reject).end();
        });
      expect(await get(`${hostname}:${plane.port}`)).toEqual({ status: 200, body: "<p>plane</p>" });
      const p404 = await get(pending);
      expect(p404.status).toBe(404);
      expect(p404.body).toContain("There is nothing at this address.");
    } finally {
      await plane?.close();
    }
  });
});

describe("TLS", () => {
  it("on Vercel: verify adds the domain to the project and reports Vercel's view; delete removes it; the token is in no answer", async () => {
    const before = vercel.calls.length;
    const { owner, hostname } = await activeDomain();
    const calls = vercel.calls.slice(before);
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      `POST /v10/projects/${vercel.projectId}/domains?teamId=team_dropsite`,
      `GET /v6/domains/${hostname}/config?projectIdOrName=${vercel.projectId}&teamId=team_dropsite`,
    ]);
    expect(calls[0]!.body).toEqual({ name: hostname });
    expect(calls.every((c) => c.authorization === `Bearer ${vercel.token}`)).toBe(true);
    expect(vercel.domains()).toContain(hostname);
    // Verifying again reads the project's domain back (Vercel answers 409 to a second add).
    const again = await verify(owner.apiKey, hostname);
    const text = await again.text();
    expect(JSON.parse(text)).toMatchObject({ status: "active", vercel: { verified: true, misconfigured: true } });
    expect(text).not.toContain(vercel.token);
    const mark = vercel.calls.length;
    const del = await remove(owner.apiKey, hostname);
    expect(await del.json()).toEqual({ deleted: hostname });
    expect(vercel.calls.slice(mark).map((c) => `${c.method} ${c.url}`)).toEqual([
      `DELETE /v9/projects/${vercel.projectId}/domains/${hostname}?teamId=team_dropsite`,
    ]);
    expect(vercel.domains()).not.toContain(hostname);
  });

  it("a Vercel failure on verify answers 503 and leaves the domain pending", async () => {
    const owner = await team();
    const slug = await deploy(owner.apiKey, "", "<p>x</p>");
    const hostname = freshHost();
    const created = domainSchema.parse(await (await add(owner.apiKey, { hostname, slug })).json());
    dns.setTxt(created.verification.name, [created.verification.value]);
    vercel.failNext("POST", 500);
    const res = await verify(owner.apiKey, hostname);
    const text = await res.text();
    expect({ status: res.status, code: JSON.parse(text).code }).toEqual({ status: 503, code: "upstream_unavailable" });
    expect(text).not.toContain(vercel.token);
    expect((await (await list(owner.apiKey)).json()).domains[0].status).toBe("pending");
    expect((await visit(hostname)).status).toBe(404);
  });

  it("self-hosted: tls-allowed answers 200 for an active domain and 404 for pending, unknown and malformed names", async () => {
    const { owner, hostname } = await activeDomain();
    const ok = await tlsAllowed(hostname.toUpperCase());
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ domain: hostname, allowed: true });
    const pending = freshHost();
    await add(owner.apiKey, { hostname: pending, slug: await deploy(owner.apiKey, "", "x") });
    for (const d of [pending, "unknown.example.org", "", "127.0.0.1", `${"a".repeat(300)}.com`])
      await expectError(await tlsAllowed(d), 404, "not_found");
    await expectError(await tlsRoute.GET(apiRequest("/domains/tls-allowed"), p({})), 404, "not_found");
  });
});

describe("a domain follows its drop (round 4)", () => {
  const deleteDrop = (apiKey: string, slug: string) =>
    dropRoute.DELETE(apiRequest(`/drops/${slug}`, { method: "DELETE", headers: bearer(apiKey) }), p({ slug }));

  it("deleting the drop: tls-allowed says no, the domain leaves Vercel and goes back to pending", async () => {
    const { owner, slug, hostname } = await activeDomain("<p>doomed</p>");
    const other = await activeDomain("<p>stays</p>");
    expect((await tlsAllowed(hostname)).status).toBe(200);
    expect(vercel.domains()).toContain(hostname);
    const mark = vercel.calls.length;
    expect((await deleteDrop(owner.apiKey, slug)).status).toBe(200);
    await expectError(await tlsAllowed(hostname), 404, "not_found");
    expect(vercel.calls.slice(mark).map((c) => `${c.method} ${c.url}`)).toEqual([
      `DELETE /v9/projects/${vercel.projectId}/domains/${hostname}?teamId=team_dropsite`,
    ]);
    expect(vercel.domains()).not.toContain(hostname);
    expect((await (await list(owner.apiKey)).json()).domains[0]).toMatchObject({ hostname, slug, status: "pending" });
    expect((await visit(hostname)).status).toBe(404);
    // Another account's domain is untouched.
    expect((await tlsAllowed(other.hostname)).status).toBe(200);
    expect(vercel.domains()).toContain(other.hostname);
  });

  it("deleting the drop while its domains cannot change: 503, and the drop and its domain stay as they were", async () => {
    const { owner, slug, hostname } = await activeDomain("<p>kept</p>");
    // The database refuses the domain's change, as one lost between the drop's delete and it.
    await t.ctx.db.execute(
      sql.raw(
        `create or replace function refuse_domain_change() returns trigger language plpgsql as $$ begin raise exception 'domains refused'; end $$`,
      ),
    );
    await t.ctx.db.execute(
      sql.raw(
        `create trigger refuse_domain_change before update on domains for each row execute function refuse_domain_change()`,
      ),
    );
    try {
      const res = await deleteDrop(owner.apiKey, slug);
      await expectError(res, 503, "upstream_unavailable");
    } finally {
      await t.ctx.db.execute(sql.raw(`drop trigger refuse_domain_change on domains`));
    }
    expect(await (await visit(hostname)).text()).toBe("<p>kept</p>");
    expect((await tlsAllowed(hostname)).status).toBe(200);
    expect(vercel.domains()).toContain(hostname);
    // And once the database takes it, the delete goes through.
    expect((await deleteDrop(owner.apiKey, slug)).status).toBe(200);
    await expectError(await tlsAllowed(hostname), 404, "not_found");
  });

  it("tls-allowed says no for a drop that has expired", async () => {
    const owner = await team();
    const slug = await deploy(owner.apiKey, "?ttl=3600", "<p>brief</p>");
    const hostname = freshHost();
    const created = domainSchema.parse(await (await add(owner.apiKey, { hostname, slug })).json());
    dns.setTxt(created.verification.name, [created.verification.value]);
    expect((await (await verify(owner.apiKey, hostname)).json()).status).toBe("active");
    expect((await tlsAllowed(hostname)).status).toBe(200);
    t.clock.advance(7200);
    await expectError(await tlsAllowed(hostname), 404, "not_found");
  });

  it("a domain the re-check sends back to pending leaves Vercel too", async () => {
    const { hostname } = await activeDomain("<p>lapsing</p>");
    expect(vercel.domains()).toContain(hostname);
    dns.setTxt(`_dropsite-challenge.${hostname}`, []);
    t.clock.advance(DOMAIN_TXT_GRACE_SECONDS + 3600);
    expect((await runCleanup(t.ctx)).domains_pending).toContain(hostname);
    expect(vercel.domains()).not.toContain(hostname);
    await expectError(await tlsAllowed(hostname), 404, "not_found");
  });

  it("deleting an account: every domain of it leaves Vercel first", async () => {
    const { owner, hostname } = await activeDomain("<p>one</p>");
    const second = freshHost();
    const created = domainSchema.parse(
      await (await add(owner.apiKey, { hostname: second, slug: await deploy(owner.apiKey, "", "<p>two</p>") })).json(),
    );
    dns.setTxt(created.verification.name, [created.verification.value]);
    expect((await (await verify(owner.apiKey, second)).json()).status).toBe("active");
    const other = await activeDomain("<p>someone else</p>");
    expect(vercel.domains()).toEqual(expect.arrayContaining([hostname, second, other.hostname]));
    await detachAccountDomains(t.ctx, owner.account.id);
    expect(vercel.domains()).not.toContain(hostname);
    expect(vercel.domains()).not.toContain(second);
    expect(vercel.domains()).toContain(other.hostname);
  });

  it("deleting an account or a team with the database lost before its domains are listed: the envelope's 503", async () => {
    // A team's delete lists its domains after its drops are gone: the database lost there
    // answered a raw error (500) before; it is the mapped 503 now, and nothing left Vercel.
    const { owner, hostname } = await activeDomain("<p>stays attached</p>");
    const lost = new PGlite();
    await lost.close();
    await expect(
      detachAccountDomains({ ...t.ctx, db: drizzlePglite(lost) as unknown as AppContext["db"] }, owner.account.id),
    ).rejects.toMatchObject({ name: "ApiError", code: "upstream_unavailable" });
    expect(vercel.domains()).toContain(hostname);
  });
});

describe("MCP add_domain, verify_domain, list_domains, remove_domain", () => {
  const call = async (client: Client, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallResult;
  const errorCode = (r: CallResult) => (r._meta?.["dev.dropsite/error"] as { code: string } | undefined)?.code;

  it("mirror the REST answers, with the DNS records in the text", async () => {
    const { apiKey } = await team();
    const slug = await deploy(apiKey, "", "<p>via mcp</p>");
    const agent = await connectInProcess("modern", { credential: apiKey, ip: "198.51.100.77" });
    const hostname = freshHost();
    const added = await call(agent, "add_domain", { hostname: hostname.toUpperCase(), slug });
    const d = domainSchema.strict().parse(added.structuredContent);
    expect(d).toMatchObject({ hostname, slug, status: "pending" });
    expect(resultText(added)).toContain(d.verification.value);
    expect(resultText(added)).toContain(`CNAME ${hostname}`);
    const pending = await call(agent, "verify_domain", { hostname });
    expect(pending.structuredContent).toMatchObject({ status: "pending" });
    expect(resultText(pending)).toContain("no TXT record found");
    dns.setTxt(d.verification.name, [d.verification.value]);
    const active = await call(agent, "verify_domain", { hostname });
    expect(active.structuredContent).toMatchObject({
      status: "active",
      vercel: { verified: true, misconfigured: true },
    });
    expect(resultText(active)).not.toContain(vercel.token);
    expect((await call(agent, "list_domains", {})).structuredContent).toEqual(await (await list(apiKey)).json());
    expect(await (await visit(hostname)).text()).toBe("<p>via mcp</p>");
    expect((await call(agent, "remove_domain", { hostname })).structuredContent).toEqual({ deleted: hostname });
    expect((await visit(hostname)).status).toBe(404);
    expect(errorCode(await call(agent, "remove_domain", { hostname }))).toBe("not_found");
    expect(errorCode(await call(agent, "add_domain", { hostname: "10.0.0.1", slug }))).toBe("invalid_request");
    const free = await accountWithKey(t.ctx, "free");
    const freeAgent = await connectInProcess("modern", { credential: free.apiKey, ip: "198.51.100.78" });
    expect(errorCode(await call(freeAgent, "add_domain", { hostname: freshHost(), slug }))).toBe(
      "subscription_required",
    );
  });
});

describe("the cleanup job's re-check", () => {
  it("a domain whose TXT record is gone for 7 days goes back to pending and is no longer served", async () => {
    const { owner, hostname } = await activeDomain("<p>kept</p>");
    const kept = await activeDomain("<p>still here</p>");
    dns.setTxt(`_dropsite-challenge.${hostname}`, []);
    t.clock.advance(DOMAIN_TXT_GRACE_SECONDS - 3600);
    expect((await runCleanup(t.ctx)).domains_pending).toEqual([]);
    expect((await visit(hostname)).status).toBe(200);
    t.clock.advance(2 * 3600);
    expect((await runCleanup(t.ctx)).domains_pending).toEqual([hostname]);
    expect((await visit(hostname)).status).toBe(404);
    expect((await (await list(owner.apiKey)).json()).domains[0]).toMatchObject({ hostname, status: "pending" });
    // A domain whose record stays is seen again by each run and keeps serving.
    expect(await (await visit(kept.hostname)).text()).toBe("<p>still here</p>");
    expect((await (await list(kept.owner.apiKey)).json()).domains[0].status).toBe("active");
  });
});

describe("two instances on one PostgreSQL", () => {
  const two = twoInstancesSuite(() => ({ SERVE_DOMAIN: SERVE, DNS_SERVERS: dns.servers }));

  async function get(ctx: AppContext, host: string) {
    const action = resolveHost(host, { serveDomain: SERVE, appHost: new URL(TEST_BASE_URL).host });
    const res = await serveDrop(ctx, action, { method: "GET", pathname: "/", headers: new Headers() });
    return { status: res.status, text: await res.text() };
  }

  it("a domain verified on one is served by the other within the revalidation window, and stops within it once deleted", async () => {
    const { account } = await accountWithKey(two.a, "team");
    const d = await createDrop(
      two.a,
      { account, via: "api_key", credentialKey: `test:${account.id}` },
      { files: [{ path: "index.html", bytes: new TextEncoder().encode("shared") }], ttl: null },
    );
    const hostname = freshHost();
    const created = await createDomain(two.a, account, { hostname, slug: d.slug });
    expect((await get(two.b, hostname)).status).toBe(404);
    dns.setTxt(created.verification.name, [created.verification.value]);
    expect((await verifyDomain(two.a, account, hostname)).status).toBe("active");
    expect(await get(two.a, hostname)).toEqual({ status: 200, text: "shared" });
    two.advance(MANIFEST_REVALIDATE_MS);
    expect(await get(two.b, hostname)).toEqual({ status: 200, text: "shared" });
    await deleteDomain(two.a, account, hostname);
    expect((await get(two.a, hostname)).status).toBe(404);
    two.advance(MANIFEST_REVALIDATE_MS);
    expect((await get(two.b, hostname)).status).toBe(404);
  });
});
