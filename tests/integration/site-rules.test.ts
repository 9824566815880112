import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import { POST as appendPOST } from "@/app/deploy/[slug]/route";
import { POST as preflightPOST } from "@/app/deploy/preflight/route";
import { GET as limitsGET } from "@/app/limits/route";
import { PUT as uploadPUT } from "@/app/deploy/uploads/[token]/[sha256]/route";
import { serveGET } from "../support/serve";
import { countDrops } from "@/lib/db/queries";
import { getDrop } from "@/lib/drops/manage";
import { rollbackToVersion } from "@/lib/drops/versions";
import { sha256Hex } from "@/lib/ids";
import { limits } from "@/lib/plans";
import { deployResponseSchema, preflightResponseSchema } from "@/lib/schemas";
import { accountWithKey, bearer } from "../support/accounts";
import { apiRequest, dropRequest, suiteContext } from "../support/context";
import { startDataPlane } from "../support/plane";
import { zip } from "../support/zips";

// Site rules end to end: `_redirects` and `_headers` parsed at every way of writing files,
// refused with the file and line, and applied by the one serve function in the documented
// order with files, folder redirects, 200.html and 404.html.

const t = suiteContext({}, { freshLimiter: true });
const noParams = { params: Promise.resolve({}) };
let ip = 0;
const L = limits.free;

function deploy(files: Record<string, unknown>, headers: Record<string, string> = {}, query = "") {
  return deployPOST(
    apiRequest(`/deploy${query}`, {
      method: "POST",
      body: JSON.stringify({ files }),
      headers: { "content-type": "application/json", ...headers },
      ip: `203.0.113.${++ip % 250}`,
    }),
    noParams,
  );
}

async function deployOk(files: Record<string, unknown>, headers: Record<string, string> = {}, query = "") {
  const res = await deploy(files, headers, query);
  const body = await res.json();
  expect({ status: res.status, error: body.error }).toEqual({ status: 200, error: undefined });
  return deployResponseSchema.parse(body);
}

async function refusal(res: Response): Promise<{ status: number; code: string; error: string; docs_url?: string }> {
  const body = await res.json();
  return { status: res.status, code: body.code, error: body.error, docs_url: body.docs_url };
}

function get(slug: string, path: string, headers: Record<string, string> = {}) {
  return serveGET(dropRequest(slug, `/api/serve-drop${path}`, { headers }));
}

const SITE = {
  "index.html": "<h1>home</h1>",
  "about.html": "<h1>about</h1>",
  "docs/index.html": "<h1>docs</h1>",
  "kept.html": "<h1>kept file</h1>",
  "app/index.html": "<h1>spa shell</h1>",
  "404.html": "<h1>custom missing</h1>",
  "gone.html": "<h1>gone page</h1>",
  "assets/app.js": "app()",
  "assets/style.css": "p{}",
  "posts/hello.html": "<h1>hello post</h1>",
  _redirects: [
    "# moved pages",
    "/old-about /about",
    "/temp /about 302",
    "/see /about 303",
    "/keep-method /about 307",
    "/perm /about 308",
    "/blog/:year/:slug /posts/:slug 301",
    "/news/* /blog/:splat",
    "/kept /elsewhere",
    "/forced-about /docs/ 302!",
    "/about /index.html 200!",
    "/query /about?from=rule",
    "/ext/* https://example.com/:splat 302",
    "/app/* /app/index.html 200",
    "/removed/* /gone.html 404",
    "/nowhere /missing.html 200",
    "/twice /first",
    "/twice /second",
    "/:any/deep /docs/ 302",
  ].join("\n"),
  _headers: [
    "/*",
    "  Cross-Origin-Opener-Policy: same-origin",
    "  Cross-Origin-Embedder-Policy: require-corp",
    "  Link: </assets/style.css>; rel=preload",
    "/assets/*",
    "  Cache-Control: public, max-age=600",
    "  Access-Control-Allow-Origin: *",
    "  Link: </assets/app.js>; rel=modulepreload",
    "/:lang/x",
    "  Content-Language: from-rule",
    "/private/*",
    "  Cache-Control: no-store",
  ].join("\n"),
};

describe("a deploy with rules", () => {
  it("reports the rule counts; the rules files are stored but never served", async () => {
    const d = await deployOk(SITE);
    expect(d.report).toMatchObject({ redirect_rules: 18, header_rules: 4 });
    expect(d.files).toContain("_redirects");
    for (const p of ["/_redirects", "/_headers"]) {
      const res = await get(d.slug, p);
      expect(res.status).toBe(404);
      expect(await res.text()).toBe("<h1>custom missing</h1>");
    }
  });

  it("a deploy without rules reports zero of each", async () => {
    const d = await deployOk({ "index.html": "x" });
    expect(d.report).toMatchObject({ redirect_rules: 0, header_rules: 0 });
  });
});

describe("redirects: statuses, placeholders, order", () => {
  let slug: string;
  const location = async (path: string, expected: [number, string]) => {
    const res = await get(slug, path);
    expect([res.status, res.headers.get("location")]).toEqual(expected);
    expect(res.headers.get("content-length")).toBe("0");
  };
  it("deploys", async () => {
    slug = (await deployOk(SITE)).slug;
  });
  it.each([
    ["/old-about", [301, "/about"]],
    ["/temp", [302, "/about"]],
    ["/see", [303, "/about"]],
    ["/keep-method", [307, "/about"]],
    ["/perm", [308, "/about"]],
    ["/old-about/", [301, "/about"]],
    ["/blog/2024/hello", [301, "/posts/hello"]],
    ["/news/a/b.html", [301, "/blog/a/b.html"]],
    ["/news", [301, "/blog/"]],
    ["/ext/x%20y/z", [302, "https://example.com/x%20y/z"]],
    ["/twice", [301, "/first"]],
    ["/any/deep", [302, "/docs/"]],
  ] as const)("%s → %j", async (path, expected) => {
    await location(path, [...expected]);
  });

  it("the query string is kept unless the target sets one", async () => {
    await location("/temp?utm=1&b=2", [302, "/about?utm=1&b=2"]);
    await location("/query?utm=1", [301, "/about?from=rule"]);
    await location("/ext/p?q=1", [302, "https://example.com/p?q=1"]);
  });

  it("a file shadows a rule without !; a forced rule wins over the file", async () => {
    const kept = await get(slug, "/kept");
    expect([kept.status, await kept.text()]).toEqual([200, "<h1>kept file</h1>"]);
    // /forced-about has no file; /about has one and its forced 200 rewrite serves index.html.
    await location("/forced-about", [302, "/docs/"]);
    const about = await get(slug, "/about");
    expect([about.status, await about.text()]).toEqual([200, "<h1>home</h1>"]);
  });

  it("a 200 rewrite serves the target with 200 (SPA routes under a folder); files still win", async () => {
    const route = await get(slug, "/app/settings/profile");
    expect([route.status, await route.text()]).toEqual([200, "<h1>spa shell</h1>"]);
    expect(route.headers.get("location")).toBeNull();
    const own = await get(slug, "/assets/app.js");
    expect([own.status, await own.text()]).toEqual([200, "app()"]);
  });

  it("a 404 rewrite serves the target with status 404", async () => {
    const res = await get(slug, "/removed/page");
    expect([res.status, await res.text()]).toEqual([404, "<h1>gone page</h1>"]);
  });

  it("a rewrite to a missing file serves the drop's 404", async () => {
    const res = await get(slug, "/nowhere");
    expect([res.status, await res.text()]).toEqual([404, "<h1>custom missing</h1>"]);
  });

  it("a path no file or rule answers gets 404.html", async () => {
    const res = await get(slug, "/unknown/thing");
    expect([res.status, await res.text()]).toEqual([404, "<h1>custom missing</h1>"]);
  });

  it("folder redirects still answer before other rules", async () => {
    await location("/docs", [308, "/docs/"]);
  });
});

describe("order with 200.html: rules come before the SPA fallback", () => {
  it("a rule answers before 200.html; other unknown routes get 200.html", async () => {
    const d = await deployOk({
      "index.html": "home",
      "200.html": "spa",
      "moved.html": "m",
      _redirects: "/old /moved 301",
    });
    const res = await get(d.slug, "/old");
    expect([res.status, res.headers.get("location")]).toEqual([301, "/moved"]);
    const route = await get(d.slug, "/some/route");
    expect([route.status, await route.text()]).toEqual([200, "spa"]);
  });
});

describe("headers rules", () => {
  let slug: string;
  it("deploys", async () => {
    slug = (await deployOk(SITE)).slug;
  });

  it("/* applies to every response, combined with the matching folder rule", async () => {
    const res = await get(slug, "/assets/app.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("cross-origin-opener-policy")).toBe("same-origin");
    expect(res.headers.get("cross-origin-embedder-policy")).toBe("require-corp");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("link")).toBe("</assets/style.css>; rel=preload, </assets/app.js>; rel=modulepreload");
    // The folder's Cache-Control replaces the default; nosniff and the ETag stay the service's.
    expect(res.headers.get("cache-control")).toBe("public, max-age=600");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("etag")).toMatch(/^"[0-9a-f]{64}"$/);
  });

  it("a page outside the folder keeps the default Cache-Control", async () => {
    const res = await get(slug, "/");
    expect(res.headers.get("cross-origin-opener-policy")).toBe("same-origin");
    expect(res.headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("a placeholder pattern matches one segment", async () => {
    expect((await get(slug, "/fr/x")).headers.get("content-language")).toBe("from-rule");
    expect((await get(slug, "/fr/y")).headers.get("content-language")).toBeNull();
    expect((await get(slug, "/fr/de/x")).headers.get("content-language")).toBeNull();
  });

  it("rules apply to 304s, ranges, HEAD, rewrites and 404s too", async () => {
    const first = await get(slug, "/assets/style.css");
    const etag = first.headers.get("etag")!;
    const revalidated = await get(slug, "/assets/style.css", { "if-none-match": etag });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get("access-control-allow-origin")).toBe("*");
    const ranged = await get(slug, "/assets/style.css", { range: "bytes=0-0" });
    expect([
      ranged.status,
      ranged.headers.get("content-range"),
      ranged.headers.get("access-control-allow-origin"),
    ]).toEqual([206, "bytes 0-0/3", "*"]);
    const head = await serveGET(dropRequest(slug, "/api/serve-drop/assets/app.js", { method: "HEAD" }));
    expect(head.headers.get("access-control-allow-origin")).toBe("*");
    const missing = await get(slug, "/assets/none.js");
    expect([missing.status, missing.headers.get("access-control-allow-origin")]).toEqual([404, "*"]);
  });

  it("compressed responses keep Vary and their encoding", async () => {
    const d = await deployOk({ "big.txt": "lorem ipsum ".repeat(400), _headers: "/*\n  Vary: Origin" });
    const res = await get(d.slug, "/big.txt", { "accept-encoding": "gzip" });
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("vary")).toBe("Accept-Encoding, Origin");
  });

  it("a no-store rule keeps the response out of the CDN", async () => {
    const d = await deployOk({
      "private/a.html": "a",
      "b.html": "b",
      _headers: "/private/*\n  Cache-Control: no-store",
    });
    const a = await get(d.slug, "/private/a.html");
    expect([a.headers.get("cache-control"), a.headers.get("vercel-cdn-cache-control")]).toEqual(["no-store", null]);
    const b = await get(d.slug, "/b.html");
    expect(b.headers.get("vercel-cdn-cache-control")).not.toBeNull();
  });

  it("anonymous drops stay noindex whatever X-Robots-Tag a rule sets", async () => {
    const d = await deployOk({ "index.html": "x", _headers: "/*\n  X-Robots-Tag: all" });
    expect((await get(d.slug, "/")).headers.get("x-robots-tag")).toBe("noindex, all");
  });
});

describe("refusals name the file, the line and the rule, and change nothing", () => {
  it.each([
    [
      { _redirects: "/a /b\n/c https://evil.example/ 200" },
      "_redirects line 2: /c https://evil.example/ 200 (a 200 rewrite serves a path of this drop, never another host)",
    ],
    [{ _redirects: "/a" }, "_redirects line 1: /a (a rule is: from to [status][!])"],
    [
      { _headers: "/*\n  Set-Cookie: session=1" },
      "_headers line 2: Set-Cookie: session=1 (Set-Cookie cannot be set: a drop cannot set cookies)",
    ],
    [
      { _headers: "/*\n  X-Content-Type-Options: none" },
      "_headers line 2: X-Content-Type-Options: none (X-Content-Type-Options stays nosniff)",
    ],
    [
      { _headers: "/*\n  Content-Length: 5" },
      "_headers line 2: Content-Length: 5 (Content-Length cannot be set: the service sets the length)",
    ],
  ])("%j", async (files, message) => {
    const before = await countDrops(t.ctx.db);
    const r = await refusal(await deploy({ "index.html": "x", ...files }));
    expect(r).toMatchObject({ status: 400, code: "invalid_request", error: message });
    expect(r.docs_url).toMatch(/\/docs#site-rules$/);
    expect(await countDrops(t.ctx.db)).toBe(before);
  });

  it("GET /limits reports the rule limits of the plan table", async () => {
    const body = (await (await limitsGET(apiRequest("/limits"), noParams)).json()) as {
      limits: Record<string, number>;
    };
    expect(body.limits).toMatchObject({
      redirect_rules: L.redirectRules,
      header_rules: L.headerRules,
      rule_line_chars: L.ruleLineChars,
      header_lines_per_rule: L.headerLinesPerRule,
      added_header_bytes: L.addedHeaderBytes,
    });
  });

  it(`${L.redirectRules} redirect rules deploy; one more is refused naming the limit`, async () => {
    const lines = Array.from({ length: L.redirectRules }, (_, i) => `/p${i} /q${i}`);
    const d = await deployOk({ "index.html": "x", _redirects: lines.join("\n") });
    expect(d.report?.redirect_rules).toBe(L.redirectRules);
    const last = await get(d.slug, `/p${L.redirectRules - 1}`);
    expect(last.headers.get("location")).toBe(`/q${L.redirectRules - 1}`);
    const r = await refusal(await deploy({ "index.html": "x", _redirects: [...lines, "/x /y"].join("\n") }));
    expect(r).toMatchObject({
      status: 400,
      code: "invalid_request",
      error: `_redirects line ${L.redirectRules + 1}: /x /y (over the limit of ${L.redirectRules} redirect rules)`,
    });
  });

  it(`${L.headerRules} header rules deploy; one more is refused naming the limit`, async () => {
    const blocks = Array.from({ length: L.headerRules }, (_, i) => `/p${i}\n  X-N: ${i}`);
    const d = await deployOk({ "index.html": "x", _headers: blocks.join("\n") });
    expect(d.report?.header_rules).toBe(L.headerRules);
    const r = await refusal(await deploy({ "index.html": "x", _headers: [...blocks, "/x\n  X-N: y"].join("\n") }));
    expect(r.error).toBe(
      `_headers line ${2 * L.headerRules + 1}: /x (over the limit of ${L.headerRules} header rules)`,
    );
  });

  it("a refused file names every bad line in errors (the message names the first), and changes nothing", async () => {
    const before = await countDrops(t.ctx.db);
    const res = await deploy({
      "index.html": "x",
      _redirects:
        "/ok /fine\n/store id=:id /blog/:id 301\n/.netlify/functions/* /api/:splat 200\n/a /b 305\n/spa/* 200",
    });
    const body = (await res.json()) as { code: string; error: string; errors: unknown[] };
    expect(res.status).toBe(400);
    expect(body.code).toBe("invalid_request");
    expect(body.error).toBe("_redirects line 2: /store id=:id /blog/:id 301 (query matching is not supported)");
    expect(body.errors).toEqual([
      { file: "_redirects", line: 2, reason: "query matching is not supported" },
      { file: "_redirects", line: 3, reason: "paths under /.netlify/ and /.well-known/dropsite/ are reserved" },
      {
        file: "_redirects",
        line: 4,
        reason: "the status is one of 200, 301, 302, 303, 307, 308, 404, optionally followed by !",
      },
    ]);
    expect(await countDrops(t.ctx.db)).toBe(before);
  });

  it("the forward shorthand serves the same path through the rewrite", async () => {
    const d = await deployOk({
      "index.html": "<h1>home</h1>",
      "app/index.html": "<h1>app shell</h1>",
      _redirects: "/app/* 200",
    });
    const res = await get(d.slug, "/app/index.html");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("<h1>app shell</h1>");
  });

  it(`_headers past ${L.headerLinesPerRule} lines in a block or ${L.addedHeaderBytes} bytes on a response is refused at the line`, async () => {
    const lines = (n: number, chars: number) =>
      Array.from({ length: n }, (_, i) => `  X-H${i}: ${"v".repeat(chars)}`).join("\n");
    const big = await refusal(await deploy({ "index.html": "x", _headers: `/*\n${lines(2000, 900)}` }));
    expect(big).toMatchObject({ status: 400, code: "invalid_request" });
    expect(big.error).toMatch(
      /^_headers line \d+: X-H\d+: v+… \(over the limit of 8192 bytes of headers on one response\)$/,
    );
    const many = await deploy({ "index.html": "x", _headers: `/*\n${lines(L.headerLinesPerRule + 1, 1)}` });
    const body = (await many.json()) as { error: string; errors: { line: number; reason: string }[] };
    expect(many.status).toBe(400);
    expect(body.errors).toEqual([
      {
        file: "_headers",
        line: L.headerLinesPerRule + 2,
        reason: `over the limit of ${L.headerLinesPerRule} header lines in one path block`,
      },
    ]);
    const d = await deployOk({ "index.html": "x", _headers: `/*\n${lines(L.headerLinesPerRule, 1)}` });
    expect(d.report?.header_rules).toBe(1);
  });

  it("a zip's rules are read and refused the same way", async () => {
    const bad = await deployPOST(
      apiRequest("/deploy", {
        method: "POST",
        body: zip({ "index.html": "x", _redirects: "# a\n/a /b 299" }) as BodyInit,
        headers: { "content-type": "application/zip" },
        ip: "203.0.113.251",
      }),
      noParams,
    );
    expect((await refusal(bad)).error).toMatch(/^_redirects line 2: \/a \/b 299 /);
    const good = await deployPOST(
      apiRequest("/deploy", {
        method: "POST",
        body: zip({ "index.html": "x", "b.html": "b", _redirects: "/a /b 302" }) as BodyInit,
        headers: { "content-type": "application/zip" },
        ip: "203.0.113.252",
      }),
      noParams,
    );
    const d = deployResponseSchema.parse(await good.json());
    expect(d.report).toMatchObject({ redirect_rules: 1, header_rules: 0 });
    expect((await get(d.slug, "/a")).headers.get("location")).toBe("/b");
  });
});

describe("rules given by reference, appended, replaced", () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  const refOf = (s: string) => ({ sha256: sha256Hex(enc(s)), size: enc(s).byteLength });

  async function uploadAll(files: Record<string, string>, key: string) {
    const res = await preflightPOST(
      apiRequest("/deploy/preflight", {
        method: "POST",
        body: JSON.stringify({ files: Object.fromEntries(Object.entries(files).map(([p, s]) => [p, refOf(s)])) }),
        headers: { "content-type": "application/json", ...bearer(key) },
      }),
      noParams,
    );
    const pre = preflightResponseSchema.parse(await res.json());
    const bySha = new Map(Object.values(files).map((s) => [refOf(s).sha256, s]));
    for (const u of pre.uploads) {
      const { pathname } = new URL(u.url);
      const [, , , token, sha256] = pathname.split("/");
      const put = await uploadPUT(
        apiRequest(pathname, {
          method: "PUT",
          body: enc(bySha.get(sha256!)!) as BodyInit,
          headers: { "content-type": "application/octet-stream" },
        }),
        {
          params: Promise.resolve({ token: token!, sha256: sha256! }),
        },
      );
      expect(put.status).toBe(201);
    }
  }

  it("by reference: compiled from the stored bytes; a bad one is refused and nothing is left", async () => {
    const a = await accountWithKey(t.ctx, "free");
    const good = { "index.html": "<p>ref</p>", "to.html": "to", _redirects: "/from /to 307" };
    await uploadAll(good, a.apiKey);
    const d = await deployOk(Object.fromEntries(Object.entries(good).map(([p, s]) => [p, refOf(s)])), bearer(a.apiKey));
    expect(d.report).toMatchObject({ redirect_rules: 1 });
    expect((await get(d.slug, "/from")).headers.get("location")).toBe("/to");
    const badRules = "/from /to 307\n/x\n";
    await uploadAll({ _redirects: badRules }, a.apiKey);
    const before = await countDrops(t.ctx.db);
    const r = await refusal(
      await deploy({ "index.html": "<p>ref</p>", _redirects: refOf(badRules) }, bearer(a.apiKey)),
    );
    expect(r).toMatchObject({
      status: 400,
      code: "invalid_request",
      error: "_redirects line 2: /x (a rule is: from to [status][!])",
    });
    expect(await countDrops(t.ctx.db)).toBe(before);
  });

  it("an append that adds a rules file compiles it beside the drop's other rules", async () => {
    const a = await accountWithKey(t.ctx, "pro");
    const d = await deployOk(
      { "index.html": "i", "b.html": "b", _headers: "/*\n  X-Frame-Options: DENY" },
      bearer(a.apiKey),
    );
    expect(d.report).toMatchObject({ redirect_rules: 0, header_rules: 1 });
    const append = (files: Record<string, string>) =>
      appendPOST(
        apiRequest(`/deploy/${d.slug}`, {
          method: "POST",
          body: JSON.stringify({ files }),
          headers: { "content-type": "application/json", ...bearer(a.apiKey) },
        }),
        {
          params: Promise.resolve({ slug: d.slug }),
        },
      );
    const bad = await refusal(await append({ _redirects: "/a /b 200\n/c https://x.example 200" }));
    expect(bad).toMatchObject({
      status: 400,
      error:
        "_redirects line 2: /c https://x.example 200 (a 200 rewrite serves a path of this drop, never another host)",
    });
    expect((await get(d.slug, "/a")).status).toBe(404);
    const res = await append({ _redirects: "/a /b 200" });
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body.report).toMatchObject({ redirect_rules: 1, header_rules: 1 });
    const served = await get(d.slug, "/a");
    expect([served.status, await served.text(), served.headers.get("x-frame-options")]).toEqual([200, "b", "DENY"]);
    const detail = await getDrop(t.ctx, a.account, d.slug);
    expect(detail).toMatchObject({ redirect_rules: 1, header_rules: 1 });
    expect(detail.rules.redirects).toEqual([{ line: 1, from: "/a", to: "/b", status: 200, force: false }]);
    expect(detail.rules.headers).toEqual([
      { line: 1, path: "/*", headers: [{ name: "X-Frame-Options", value: "DENY" }] },
    ]);
  });

  it("a named replace without rules files drops the old rules", async () => {
    const a = await accountWithKey(t.ctx, "pro");
    const first = await deployOk(
      { "index.html": "1", "b.html": "b", _redirects: "/a /b 302" },
      bearer(a.apiKey),
      "?name=site",
    );
    expect((await get(first.slug, "/a")).status).toBe(302);
    const second = await deployOk({ "index.html": "2" }, bearer(a.apiKey), "?name=site");
    expect(second.slug).toBe(first.slug);
    expect(second.report).toMatchObject({ redirect_rules: 0, header_rules: 0 });
    expect((await get(first.slug, "/a")).status).toBe(404);
    const third = await deployOk(
      { "index.html": "3", "c.html": "c", _redirects: "/a /c 307" },
      bearer(a.apiKey),
      "?name=site",
    );
    expect(third.report).toMatchObject({ redirect_rules: 1 });
    expect((await get(first.slug, "/a")).headers.get("location")).toBe("/c");
  });

  it("the rules are the version's: a rollback serves the old version's rules, a rollfore the new one's", async () => {
    const a = await accountWithKey(t.ctx, "pro");
    const v1 = await deployOk(
      { "index.html": "1", "b.html": "b", _redirects: "/a /b 302", _headers: "/*\n  X-Site: one" },
      bearer(a.apiKey),
      "?name=versions",
    );
    const v2 = await deployOk(
      { "index.html": "2", "c.html": "c", _redirects: "/a /c 307" },
      bearer(a.apiKey),
      "?name=versions",
    );
    expect(v2.version).toBe(2);
    const at = async () => {
      const res = await get(v1.slug, "/a");
      return { status: res.status, location: res.headers.get("location"), site: res.headers.get("x-site") };
    };
    expect(await at()).toEqual({ status: 307, location: "/c", site: null });
    await rollbackToVersion(t.ctx, a.account, v1.slug, 1);
    expect(await at()).toEqual({ status: 302, location: "/b", site: "one" });
    const detail = await getDrop(t.ctx, a.account, v1.slug);
    expect({ live: detail.live_version, redirects: detail.redirect_rules, headers: detail.header_rules }).toEqual({
      live: 1,
      redirects: 1,
      headers: 1,
    });
    await rollbackToVersion(t.ctx, a.account, v1.slug, 2);
    expect(await at()).toEqual({ status: 307, location: "/c", site: null });
    // The next write builds on the live version's rules: an append keeps version 2's redirect.
    const appended = await appendPOST(
      apiRequest(`/deploy/${v1.slug}`, {
        method: "POST",
        body: JSON.stringify({ files: { _headers: "/*\n  X-Site: three" } }),
        headers: { "content-type": "application/json", ...bearer(a.apiKey) },
      }),
      { params: Promise.resolve({ slug: v1.slug }) },
    );
    expect(appended.status).toBe(200);
    expect(await at()).toEqual({ status: 307, location: "/c", site: "three" });
  });
});

describe("attacks on the rules", () => {
  let slug: string;
  it("deploys", async () => {
    slug = (
      await deployOk({
        "index.html": "x",
        _redirects: [
          "/r/* /:splat 302",
          "/s/* /x/:splat 302",
          "/e/* https://example.com/:splat 302",
          "/w/* /:splat 200",
        ].join("\n"),
      })
    ).slug;
  });

  it("CR/LF in the path never reaches a header", async () => {
    const res = await get(slug, "/r/a%0D%0ASet-Cookie:%20x=1");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/a%0D%0ASet-Cookie%3A%20x%3D1");
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("a splat never makes a protocol-relative or backslash target", async () => {
    for (const path of ["/r//evil.example", "/r/%2Fevil.example", "/r/%5Cevil.example", "/r/\\evil.example"]) {
      const res = await get(slug, path);
      const loc = res.headers.get("location");
      if (loc !== null) expect(loc).toMatch(/^\/(?![/\\])/);
      else expect(res.status).toBe(404);
    }
    const at = await get(slug, "/e/@evil.example");
    expect(at.headers.get("location")).toBe("https://example.com/%40evil.example");
    expect(new URL(at.headers.get("location")!).host).toBe("example.com");
  });

  it("a 200 rewrite stays inside the drop", async () => {
    const res = await get(slug, "/w/https:%2F%2Fevil.example");
    expect(res.status).toBe(404);
    const dots = await get(slug, "/w/..%2F..%2Fetc");
    expect(dots.status).toBe(404);
  });
});

describe("the self-hosted listener serves the rules through the same function", () => {
  it("redirects, rewrites and header rules over a socket", async () => {
    const d = await deployOk(SITE);
    const plane = await startDataPlane();
    const { port } = plane;
    const fetchRaw = (pathname: string) =>
      new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
        (resolve, reject) => {
          const req = request(
            { host: "127.0.0.1", port, path: pathname, headers: { host: `${d.slug}.drops.localhost:3000` } },
            (res) => {
              let body = "";
              res.on("data", (c: Buffer) => (body += c.toString()));
              res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
            },
          );
          req.on("error", reject);
          req.end();
        },
      );
    try {
      const moved = await fetchRaw("/blog/2024/hello?x=1");
      expect([moved.status, moved.headers.location]).toEqual([301, "/posts/hello?x=1"]);
      const spa = await fetchRaw("/app/deep/route");
      expect([spa.status, spa.body, spa.headers["cross-origin-embedder-policy"]]).toEqual([
        200,
        "<h1>spa shell</h1>",
        "require-corp",
      ]);
      const asset = await fetchRaw("/assets/app.js");
      expect([
        asset.headers["cache-control"],
        asset.headers["access-control-allow-origin"],
        asset.headers["set-cookie"],
      ]).toEqual(["public, max-age=600", "*", undefined]);
      const hidden = await fetchRaw("/_headers");
      expect(hidden.status).toBe(404);
    } finally {
      await plane.close();
    }
  });
});
