import { beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { POST as appendPOST } from "@/app/deploy/[slug]/route";
import { GET as dropsGET } from "@/app/drops/route";
import { DELETE as dropDELETE } from "@/app/drops/[slug]/route";
import { POST as mcpPOST } from "@/app/mcp/route";
import { POST as claimPOST } from "@/app/claim/route";
import { POST as webhookPOST } from "@/app/billing/webhook/route";
import { serveGET } from "../support/serve";
import { crc32 } from "@/lib/deploy/zip";
import { findDropBySlug } from "@/lib/db/queries";
import { accounts } from "@/lib/db/schema";
import { suiteContext, freshLimiter, apiRequest, dropRequest, TEST_SERVE_DOMAIN } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { postDeploy } from "../support/deploy";
import { text, zip } from "../support/zips";

// A hostile user's probes of the HTTP API. Each case is either a bug that was found and fixed
// (marked "found:") or a guarantee an attacker would test first.

const noParams = { params: Promise.resolve({}) };
const slugParams = (slug: string) => ({ params: Promise.resolve({ slug }) });
let ip = 0;

const t = suiteContext({ STRIPE_SECRET_KEY: "sk_test_attacks", STRIPE_WEBHOOK_SECRET: "whsec_attacks" });
// Every test deploys from its own address, with a fresh limiter, so the abuse guard stays out of the way.
beforeEach(async () => {
  await freshLimiter(t);
  ip++;
});

/** POST /deploy from this test's own address. */
const deploy = (body: BodyInit, contentType: string, query = "", headers: Record<string, string> = {}) =>
  postDeploy(body, contentType, { query, headers, ip: `198.51.100.${ip % 250}` });
const deployJson = (files: unknown, query = "", headers: Record<string, string> = {}) =>
  deploy(JSON.stringify({ files }), "application/json", query, headers);
const deployZip = (archive: Uint8Array) => deploy(archive as BodyInit, "application/zip");
const serve = (label: string, path = "/") => serveGET(dropRequest(label, `/api/serve-drop${path}`));

async function ok(res: Response): Promise<{ slug: string; [k: string]: unknown }> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

async function expectError(res: Response, status: number, code: string) {
  const body = await res.json();
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(typeof body.error).toBe("string");
  return body;
}

function mcp(body: unknown, headers: Record<string, string> = {}) {
  return mcpPOST(
    apiRequest("/mcp", {
      method: "POST",
      body: typeof body === "string" ? body : JSON.stringify(body),
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    }),
    noParams,
  );
}
async function tool(name: string, args: unknown, headers: Record<string, string> = {}) {
  const res = await mcp({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: args } }, headers);
  expect(res.status).toBe(200);
  const result = (await res.json()).result as { isError: boolean; _meta?: Record<string, { code: string }> };
  // A failed call carries its envelope under _meta (and in its text), never as structuredContent.
  return { isError: result.isError, error: result._meta?.["dev.dropsite/error"] };
}

// A zip written byte by byte (stored entries), so the central directory can lie.
interface CdEntry {
  name: string;
  /** Index of the local entry whose data this central-directory entry points at. */
  local: number;
  size?: number;
}
function rawZip(locals: { name: string; data: Uint8Array }[], cd: CdEntry[]): Uint8Array {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  const offsets: number[] = [];
  let offset = 0;
  for (const l of locals) {
    const name = enc.encode(l.name);
    const h = new DataView(new ArrayBuffer(30));
    h.setUint32(0, 0x04034b50, true);
    h.setUint16(4, 20, true);
    h.setUint32(14, crc32(l.data), true);
    h.setUint32(18, l.data.length, true);
    h.setUint32(22, l.data.length, true);
    h.setUint16(26, name.length, true);
    offsets.push(offset);
    parts.push(new Uint8Array(h.buffer), name, l.data);
    offset += 30 + name.length + l.data.length;
  }
  const cdStart = offset;
  for (const e of cd) {
    const l = locals[e.local]!;
    const name = enc.encode(e.name);
    const h = new DataView(new ArrayBuffer(46));
    h.setUint32(0, 0x02014b50, true);
    h.setUint16(4, 20, true);
    h.setUint16(6, 20, true);
    h.setUint32(16, crc32(l.data), true);
    h.setUint32(20, l.data.length, true);
    h.setUint32(24, e.size ?? l.data.length, true);
    h.setUint16(28, name.length, true);
    h.setUint32(42, offsets[e.local]!, true);
    parts.push(new Uint8Array(h.buffer), name);
    offset += 46 + name.length;
  }
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, cd.length, true);
  end.setUint16(10, cd.length, true);
  end.setUint32(12, offset - cdStart, true);
  end.setUint32(16, cdStart, true);
  parts.push(new Uint8Array(end.buffer));
  const out = new Uint8Array(offset + 22);
  let p = 0;
  for (const part of parts) {
    out.set(part, p);
    p += part.length;
  }
  return out;
}

describe("query parameters", () => {
  it("found: a subscriber's ttl past year 9999 is 400 invalid_ttl, not a 503 from the database", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    await expectError(
      await deployJson({ "index.html": "x" }, "?ttl=999999999999", bearer(pro.apiKey)),
      400,
      "invalid_ttl",
    );
    const viaMcp = await tool("deploy_html", { html: "<p>x</p>", ttl: 999999999999 }, bearer(pro.apiKey));
    expect(viaMcp.isError).toBe(true);
    expect(viaMcp.error?.code).toBe("invalid_ttl");
    // 100 years is still accepted, and expires_at stays an RFC 3339 date-time.
    const d = await ok(await deployJson({ "index.html": "x" }, `?ttl=${100 * 365 * 86400}`, bearer(pro.apiKey)));
    expect(d.expires_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("a repeated ttl or name uses the first value, so a second ttl cannot stretch a free drop", async () => {
    const res = await deployJson({ "index.html": "x" }, "?ttl=60&ttl=999999999");
    const d = await ok(res);
    expect(d.expires_at).toBe(new Date(t.clock.now + 60_000).toISOString());
    await expectError(await deployJson({ "index.html": "x" }, "?ttl=999999999&ttl=60"), 400, "invalid_ttl");
  });

  it("ttl in other spellings (+60, 60.0, 0x100, 6e1, empty) is invalid_ttl", async () => {
    for (const q of ["?ttl=%2B60", "?ttl=60.0", "?ttl=0x100", "?ttl=6e1", "?ttl=", "?ttl=-60"]) {
      await expectError(await deployJson({ "index.html": "x" }, q), 400, "invalid_ttl");
    }
  });

  it("name: empty, uppercase, non-ASCII, NUL and 42 characters are invalid_name; anonymous is 401 first", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    for (const q of [
      "?name=",
      "?name=Site",
      "?name=%C3%A9t%C3%A9",
      "?name=a%00",
      `?name=${"a".repeat(42)}`,
      "?name=-a",
    ]) {
      await expectError(await deployJson({ "index.html": "x" }, q, bearer(pro.apiKey)), 400, "invalid_name");
    }
    await expectError(await deployJson({ "index.html": "x" }, "?name=Site"), 401, "auth_required");
  });
});

describe("paths", () => {
  it("found: paths with lone surrogates are 400, not two names collapsing into one stored file (503)", async () => {
    await expectError(
      await deploy('{"files":{"a\\ud800.html":"one","a\\udc00.html":"two"}}', "application/json"),
      400,
      "invalid_request",
    );
    await expectError(
      await deploy('{"files":{"index.html":"x","\\udfff":"y"}}', "application/json"),
      400,
      "invalid_request",
    );
    // A proper pair (an emoji) is fine and serves under its percent-encoded UTF-8 name.
    const d = await ok(await deploy('{"files":{"\\ud83d\\ude00.html":"smile"}}', "application/json"));
    expect(await (await serve(d.slug, "/%F0%9F%98%80.html")).text()).toBe("smile");
  });

  it("found: a path that is also another path's folder is 400, not a 503 from storage", async () => {
    const body = await expectError(await deployJson({ a: "file", "a/index.html": "inner" }), 400, "invalid_request");
    expect(body.error).toContain("both a file and a folder");
    await expectError(await deployJson({ "x/y/z.html": "deep", "x/y": "file" }), 400, "invalid_request");
    await expectError(
      await deployZip(zip({ "docs/a": "file", "docs/a/b.html": "inner", "docs/index.html": "i" })),
      400,
      "invalid_request",
    );
    // Siblings sharing a prefix are no clash.
    await ok(await deployJson({ ab: "1", "a/b": "2", "a-b/c": "3" }));
  });

  it("percent-encoding on the serve side cannot climb out or name a different file", async () => {
    const d = await ok(
      await deployJson({ "index.html": "root", "a b.html": "space", "%41.html": "literal", "dir/index.html": "dir" }),
    );
    const cases: [string, number, string?][] = [
      ["/a%20b.html", 200, "space"],
      ["/%2541.html", 200, "literal"],
      ["/%41.html", 404],
      // The URL parser resolves encoded dot segments before we see the path: at most the drop's root.
      ["/%2e%2e/%2e%2e/index.html", 200, "root"],
      ["/dir%2findex.html", 404],
      ["/dir%5cindex.html", 404],
      // A percent-escape that does not decode is a bad request (an HTML page on drop hosts).
      ["/%ZZ", 400],
      ["/index.html%00", 404],
      ["/./dir/./", 200, "dir"],
    ];
    for (const [path, status, body] of cases) {
      const res = await serve(d.slug, path);
      expect({ path, status: res.status }).toEqual({ path, status });
      if (body) expect(await res.text()).toBe(body);
    }
  });
});

describe("zip archives", () => {
  it("../ that appears after the root folder is stripped is refused", async () => {
    await expectError(
      await deployZip(zip({ "root/index.html": "a", "root/../evil.html": "b" })),
      400,
      "invalid_request",
    );
    await expectError(
      await deployZip(zip({ "site/index.html": "a", "site/x/../../../etc/passwd": "b" })),
      400,
      "invalid_request",
    );
  });

  it("./ entries are normalised; a NUL or a duplicate name is refused", async () => {
    const d = await ok(await deployZip(zip({ "./index.html": "dot", "./a/./b.html": "b" })));
    expect([...(d.files as string[])].sort()).toEqual(["a/b.html", "index.html"]);
    await expectError(await deployZip(zip({ "index.html": "a", "x\u0000.html": "b" })), 400, "invalid_request");
    const data = text("<h1>dup</h1>");
    const dup = rawZip(
      [
        { name: "index.html", data },
        { name: "index.html", data },
      ],
      [
        { name: "index.html", local: 0 },
        { name: "index.html", local: 1 },
      ],
    );
    await expectError(await deployZip(dup), 400, "invalid_request");
  });

  it("overlapping entries (many central-directory names over one local file) count against the 4x budget", async () => {
    const data = new Uint8Array(4000).map((_, i) => (i * 7919) % 251);
    const names = Array.from({ length: 40 }, (_, i) => ({ name: `f${i}.bin`, local: 0 }));
    await expectError(await deployZip(rawZip([{ name: "f0.bin", data }], names)), 413, "payload_too_large");
    // Two names over one small file stay within 4x: both are the same bytes, nothing more.
    const two = await ok(
      await deployZip(
        rawZip(
          [{ name: "a.txt", data: text("same") }],
          [
            { name: "a.txt", local: 0 },
            { name: "b.txt", local: 0 },
          ],
        ),
      ),
    );
    expect(two.files).toEqual(["a.txt", "b.txt"]);
  });

  it("a stored entry whose sizes disagree is invalid_zip; the local header's name is never used", async () => {
    const data = text("<h1>x</h1>");
    await expectError(
      await deployZip(
        rawZip([{ name: "index.html", data }], [{ name: "index.html", local: 0, size: data.length + 100 }]),
      ),
      400,
      "invalid_zip",
    );
    const d = await ok(
      await deployZip(rawZip([{ name: "../../../evil.html", data }], [{ name: "index.html", local: 0 }])),
    );
    expect(d.files).toEqual(["index.html"]);
  });
});

describe("JSON bodies", () => {
  it("non-object files, deep nesting and arrays are 400 invalid_request", async () => {
    const deep = "[".repeat(200_000) + "]".repeat(200_000);
    for (const body of [
      '{"files":[]}',
      '{"files":"index.html"}',
      '{"files":null}',
      "[]",
      '"x"',
      "12",
      `{"files":{"a":${deep}}}`,
      `{"files":${deep}}`,
      '{"files":{"a":{"encoding":"base64","content":"@@@@"}}}',
    ]) {
      await expectError(await deploy(body, "application/json"), 400, "invalid_request");
    }
  });

  it("found: a repeated key (files, a path, or one spelled with escapes) is 400, not the last one winning", async () => {
    for (const body of [
      '{"files":{"evil.html":"x"},"files":{"index.html":"ok"}}',
      '{"files":{"index.html":"a","index.html":"b"}}',
      '{"files":{"ab.html":"a","a\\u0062.html":"b"}}',
    ]) {
      await expectError(await deploy(body, "application/json"), 400, "invalid_request");
    }
    // The same key in different objects is fine.
    await ok(
      await deploy('{"files":{"a.json":"{}","b.html":{"encoding":"base64","content":"YQ=="}}}', "application/json"),
    );
  });

  it("invalid UTF-8 in a JSON body is 400, not silently replaced", async () => {
    const bytes = new Uint8Array([...text('{"files":{"a'), 0xff, ...text('.html":"x"}}')]);
    await expectError(await deploy(bytes as BodyInit, "application/json"), 400, "invalid_request");
  });
});

describe("credentials", () => {
  it("the scheme is case-insensitive; two Authorization headers, other schemes and a key in another case are 401", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const list = (authorization: string) => dropsGET(apiRequest("/drops", { headers: { authorization } }), noParams);
    expect((await list(`bearer ${a.apiKey}`)).status).toBe(200);
    expect((await list(`Bearer   ${a.apiKey}  `)).status).toBe(200);
    const headers = new Headers();
    headers.append("authorization", `Bearer ${a.apiKey}`);
    headers.append("authorization", "Bearer sp_other");
    await expectError(await dropsGET(apiRequest("/drops", { headers }), noParams), 401, "auth_required");
    const swapped =
      a.apiKey.slice(0, 3) +
      [...a.apiKey.slice(3)].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join("");
    for (const bad of [
      `Basic ${a.apiKey}`,
      `Bearer ${swapped}`,
      `Bearer ${a.apiKey}x`,
      `Bearer ${a.apiKey} extra`,
      "Bearer",
      `Token ${a.apiKey}`,
    ]) {
      await expectError(await list(bad), 401, "auth_required");
    }
  });

  it("an unsigned or HS256 token with a trusted-looking issuer is 401, never an account", async () => {
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    const claims = {
      iss: "https://accounts.google.com",
      sub: "victim",
      aud: ["x"],
      exp: 4102444800,
      iat: Math.floor(t.clock.now / 1000),
    };
    for (const header of [
      { alg: "none" },
      { alg: "HS256", jku: "https://evil.example/jwks" },
      { alg: "RS256", kid: "../../x", x5u: "https://evil.example/c" },
    ]) {
      const token = `${b64(header)}.${b64(claims)}.`;
      await expectError(
        await dropsGET(apiRequest("/drops", { headers: bearer(token) }), noParams),
        401,
        "auth_required",
      );
    }
  });
});

describe("other accounts' resources", () => {
  it("append, delete, list and MCP delete_drop on another account's drop all look like absence", async () => {
    const owner = await accountWithKey(t.ctx, "pro");
    const intruder = await accountWithKey(t.ctx, "pro");
    const d = await ok(await deployJson({ "index.html": "mine" }, "", bearer(owner.apiKey)));
    const append = await appendPOST(
      apiRequest(`/deploy/${d.slug}`, {
        method: "POST",
        body: JSON.stringify({ files: { "x.html": "pwned" } }),
        headers: { "content-type": "application/json", ...bearer(intruder.apiKey) },
      }),
      slugParams(d.slug),
    );
    await expectError(append, 404, "not_found");
    await expectError(
      await dropDELETE(
        apiRequest(`/drops/${d.slug}`, { method: "DELETE", headers: bearer(intruder.apiKey) }),
        slugParams(d.slug),
      ),
      404,
      "not_found",
    );
    const viaMcp = await tool("delete_drop", { slug: d.slug }, bearer(intruder.apiKey));
    expect(viaMcp.error?.code).toBe("not_found");
    const listed = await (await dropsGET(apiRequest("/drops", { headers: bearer(intruder.apiKey) }), noParams)).json();
    expect(listed).toEqual({ total: 0, drops: [] });
    expect(await (await serve(d.slug)).text()).toBe("mine");
    expect((await serve(d.slug, "/x.html")).status).toBe(404);
  });

  it("an anonymous drop cannot be claimed with a wrong token, nor an owned drop with any token", async () => {
    const thief = await accountWithKey(t.ctx, "free");
    const anon = await ok(await deployJson({ "index.html": "anon" }));
    const owned = await ok(
      await deployJson({ "index.html": "owned" }, "", bearer((await accountWithKey(t.ctx, "free")).apiKey)),
    );
    const claim = (slug: string, claim_token: string) =>
      claimPOST(
        apiRequest("/claim", {
          method: "POST",
          body: JSON.stringify({ slug, claim_token }),
          headers: { "content-type": "application/json", ...bearer(thief.apiKey) },
          ip: `192.0.2.${ip % 250}`,
        }),
        noParams,
      );
    await expectError(await claim(anon.slug, `ct_${"A".repeat(43)}`), 404, "not_found");
    await expectError(await claim(owned.slug, anon.claim_token as string), 404, "not_found");
  });

  it("a named drop of one account is not served through another account's vanity sub", async () => {
    const team = await accountWithKey(t.ctx, "team");
    const other = await accountWithKey(t.ctx, "pro");
    await t.ctx.db.update(accounts).set({ vanitySub: "acme-attacks" }).where(eq(accounts.id, team.account.id));
    await ok(await deployJson({ "index.html": "other's site" }, "?name=site", bearer(other.apiKey)));
    expect((await serve("acme-attacks--site")).status).toBe(404);
    await ok(await deployJson({ "index.html": "team site" }, "?name=site", bearer(team.apiKey)));
    expect(await (await serve("acme-attacks--site")).text()).toBe("team site");
  });
});

describe("host header", () => {
  it("case, a trailing dot and the default port reach the same drop; IP and app hosts never serve drops", async () => {
    const d = await ok(await deployJson({ "index.html": "hosted" }));
    const [domain, port] = TEST_SERVE_DOMAIN.split(":");
    const get = (host: string) => serveGET(new Request(`http://x/api/serve-drop/`, { headers: { host } }));
    for (const host of [`${d.slug.toUpperCase()}.${domain!.toUpperCase()}:${port}`, `${d.slug}.${domain}.:${port}`]) {
      const res = await get(host);
      expect({ host, status: res.status }).toEqual({ host, status: 200 });
    }
    for (const host of [
      "127.0.0.1:3000",
      "[::1]:3000",
      "localhost:3000",
      `${d.slug}.${domain}:9999`,
      `evil.${d.slug}.${domain}:${port}`,
      `${d.slug}.${domain}.evil.example`,
    ]) {
      const res = await get(host);
      expect({ host, status: res.status }).toEqual({ host, status: 404 });
    }
  });
});

describe("concurrency", () => {
  it("found: parallel deletes of one drop: exactly one answers 200, the others 404", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const d = await ok(await deployJson({ "index.html": "x" }, "", bearer(a.apiKey)));
    const statuses = await Promise.all(
      [1, 2, 3].map(() =>
        dropDELETE(
          apiRequest(`/drops/${d.slug}`, { method: "DELETE", headers: bearer(a.apiKey) }),
          slugParams(d.slug),
        ).then((r) => r.status),
      ),
    );
    expect(statuses.sort()).toEqual([200, 404, 404]);
    expect((await serve(d.slug)).status).toBe(404);
  });

  it("found: an append that commits while its drop is being deleted leaves no orphaned bytes", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const d = await ok(await deployJson({ "index.html": "x" }, "", bearer(pro.apiKey)));
    const id = (await findDropBySlug(t.ctx.db, d.slug))!.id;
    const storage = t.ctx.storage;
    let appended: Response | undefined;
    // Between the delete's purge of the bytes and its row delete, an append of the owner lands.
    t.ctx.storage = Object.assign(Object.create(Object.getPrototypeOf(storage)), storage, {
      deletePrefix: async (prefix: string) => {
        await storage.deletePrefix(prefix);
        if (prefix === `${id}/` && !appended) {
          appended = await appendPOST(
            apiRequest(`/deploy/${d.slug}`, {
              method: "POST",
              body: JSON.stringify({ files: { "late.html": "late" } }),
              headers: { "content-type": "application/json", ...bearer(pro.apiKey) },
            }),
            slugParams(d.slug),
          );
        }
      },
    });
    try {
      const del = await dropDELETE(
        apiRequest(`/drops/${d.slug}`, { method: "DELETE", headers: bearer(pro.apiKey) }),
        slugParams(d.slug),
      );
      expect(del.status).toBe(200);
      expect(appended?.status).toBe(200);
    } finally {
      t.ctx.storage = storage;
    }
    expect(await storage.list(`${id}/`)).toEqual([]);
  });

  it("parallel redeploys of one new name end as one drop with one URL", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const results = await Promise.all(
      [1, 2, 3, 4].map((i) => deployJson({ "index.html": `v${i}` }, "?name=race", bearer(pro.apiKey)).then(ok)),
    );
    expect(new Set(results.map((r) => r.slug)).size).toBe(1);
    const listed = await (await dropsGET(apiRequest("/drops", { headers: bearer(pro.apiKey) }), noParams)).json();
    expect(listed.total).toBe(1);
    expect(listed.drops[0].redeploy_count).toBe(3);
  });
});

describe("MCP", () => {
  it("ids of odd types are refused with id null; arguments of the wrong type are isError, never a crash", async () => {
    // (1.5 is a JSON-RPC number id the official SDK accepts; the spec only advises against fractions.)
    for (const id of [true, {}, [], null]) {
      const res = await mcp({ jsonrpc: "2.0", id, method: "tools/list" });
      expect(res.status).toBe(400);
      expect((await res.json()).id).toBeNull();
    }
    for (const [name, args] of [
      ["deploy_html", { html: 42 }],
      ["deploy_files", { files: ["index.html"] }],
      ["deploy_files", { files: { "../x": "y" } }],
      ["list_drops", { limit: "all" }],
      ["delete_drop", { slug: { $ne: "" } }],
      ["get_limits", { extra: "x".repeat(100_000) }],
    ] as const) {
      const r = await tool(name, args);
      expect({ name, isError: r.isError }).toEqual({ name, isError: true });
    }
  });

  it("a body past the cap is refused before it is parsed", async () => {
    const res = await mcp(
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy_html","arguments":{"html":"${"x".repeat(11 * 1024 * 1024)}"}}}`,
    );
    expect(res.status).toBe(413);
  });
});

describe("billing webhook", () => {
  it("unsigned, wrongly signed and stale-signed events are 400 and change nothing", async () => {
    const payload = JSON.stringify({
      id: "evt_attack",
      type: "customer.subscription.updated",
      created: Math.floor(t.clock.now / 1000),
      data: { object: {} },
    });
    const deliver = (headers: Record<string, string>) =>
      webhookPOST(
        apiRequest("/billing/webhook", {
          method: "POST",
          body: payload,
          headers: { "content-type": "application/json", ...headers },
        }),
        noParams,
      );
    await expectError(await deliver({}), 400, "invalid_request");
    await expectError(
      await deliver({ "stripe-signature": `t=${Math.floor(t.clock.now / 1000)},v1=${"0".repeat(64)}` }),
      400,
      "invalid_request",
    );
    await expectError(await deliver({ "stripe-signature": "garbage" }), 400, "invalid_request");
  });
});
