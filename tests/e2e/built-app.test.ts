import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdir } from "node:fs/promises";
import { connect } from "node:net";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import path from "node:path";
import { startApp, type RunningApp } from "../support/app-server";
import { bomb, manyFiles, zip, zipWithSymlink } from "../support/zips";

// The built app over real HTTP: deploy on the app host, visit by Host header.

let app: RunningApp;
let appHost: string;
let slug: string;
let ipN = 0;

beforeAll(async () => {
  app = await startApp({ RATE_LIMIT_DEPLOYS_PER_MINUTE: "20" });
  appHost = `localhost:${app.port}`;
  const res = await deploy(
    JSON.stringify({
      files: {
        "index.html": "<h1>built</h1>",
        "about.html": "about",
        "docs/index.html": "docs",
        "404.html": "custom 404",
        "a.css": "b{}",
        "_next/static/x.js": "drop next",
        "api/x": "drop api",
      },
    }),
    "application/json",
  );
  expect(res.status).toBe(200);
  slug = (res.json() as { slug: string }).slug;
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

// Each deploy comes from its own forwarded address; TRUST_PROXY is off, so the guard keys on the
// socket (always 127.0.0.1 here) — the abuse-guard test below relies on that.
function deploy(body: string | Uint8Array, type: string, query = "", headers: Record<string, string> = {}) {
  return app.request(appHost, `/deploy${query}`, {
    method: "POST",
    body,
    headers: { "content-type": type, ...headers },
  });
}
const visit = (label: string, p: string, headers: Record<string, string> = {}, method = "GET") =>
  app.request(`${label}.${app.serveDomain}`, p, { headers, method });

/** Sends raw bytes and reads until the server answers (or closes): for request lines fetch cannot send. */
function rawRequest(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = connect(app.port, "127.0.0.1");
    let out = "";
    sock.on("data", (d) => {
      out += d.toString();
      if (/\r\n\r\n/.test(out)) {
        const len = /content-length: (\d+)/i.exec(out);
        const head = out.indexOf("\r\n\r\n") + 4;
        if (len && out.length - head >= Number(len[1])) sock.destroy();
      }
    });
    sock.on("close", () => resolve(out));
    sock.on("error", (err) => (out ? resolve(out) : reject(err)));
    sock.write(text);
  });
}

/** Streams `total` bytes (declared or chunked) until the server answers; resolves its status. */
function sendLarge(pathname: string, total: number, declared: boolean): Promise<number> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { host: appHost, "content-type": "application/json" };
    if (declared) headers["content-length"] = total;
    const req = httpRequest({ host: "127.0.0.1", port: app.port, path: pathname, method: "POST", headers }, (res) => {
      answered = res.statusCode ?? 0;
      res.resume();
      res.on("end", () => resolve(answered));
    });
    let answered = 0;
    // The server may hang up on a refused upload before this client has read the answer (EPIPE
    // on the next write): 0 stands for "closed without a readable answer".
    req.on("error", () => resolve(answered));
    const chunk = Buffer.alloc(1024 * 1024, 120);
    let sent = 0;
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

async function storedBlobs(): Promise<string[]> {
  const root = path.join(app.dataDir, "blobs");
  try {
    return (await readdir(root, { recursive: true })).map(String).sort();
  } catch {
    return [];
  }
}

describe("deploy and visit over HTTP", () => {
  it("an HTML body deploys and the URL serves it by Host", async () => {
    const res = await deploy("<h1>Hello from curl</h1>", "text/html");
    expect(res.status).toBe(200);
    const body = res.json() as Record<string, unknown> & { slug: string };
    expect(Object.keys(body).sort()).toEqual([
      "claim_token",
      "expires_at",
      "files",
      "live_version",
      "open_comments",
      "plan",
      "promoted",
      "report",
      "slug",
      "url",
      "version",
      "version_url",
    ]);
    // The contract's fields, and the additive report: an index.html that references nothing is clean.
    expect(body.version).toBe(1);
    expect(body.report).toEqual({ missing_references: [], warnings: [], redirect_rules: 0, header_rules: 0 });
    expect(body.url).toBe(`http://${body.slug}.localhost:${app.port}/`);
    const page = await visit(body.slug, "/");
    expect(page.status).toBe(200);
    expect(page.text).toBe("<h1>Hello from curl</h1>");
  });

  it.each([
    ["/", 200, "<h1>built</h1>"],
    ["/about", 200, "about"],
    ["/docs/", 200, "docs"],
    ["/_next/static/x.js", 200, "drop next"],
    ["/api/x", 200, "drop api"],
    ["/deploy", 404, "custom 404"],
    ["/missing", 404, "custom 404"],
  ])("drop path %s answers %i", async (p, status, text) => {
    const res = await visit(slug, p);
    expect(res.status).toBe(status);
    expect(res.text).toBe(text);
  });

  it("serves headers a static host should: type, nosniff, ETag/304, ranges, HEAD, cache, robots", async () => {
    const css = await visit(slug, "/a.css");
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect(css.headers["x-content-type-options"]).toBe("nosniff");
    expect(css.headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
    expect(css.headers["x-robots-tag"]).toBe("noindex");
    expect(css.headers["x-middleware-rewrite"]).toBeUndefined();
    const etag = css.headers.etag as string;
    expect((await visit(slug, "/a.css", { "if-none-match": etag })).status).toBe(304);
    const part = await visit(slug, "/a.css", { range: "bytes=0-1", "accept-encoding": "gzip" });
    expect(part.status).toBe(206);
    expect(part.text).toBe("b{");
    expect(part.headers["content-length"]).toBe("2");
    expect(part.headers["content-range"]).toBe("bytes 0-1/3");
    expect((await visit(slug, "/a.css", { range: "bytes=99-" })).status).toBe(416);
    const head = await visit(slug, "/", {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers["content-length"]).toBe(String("<h1>built</h1>".length));
    expect(head.headers["x-dropsite-content-length"]).toBeUndefined();
    expect((await visit(slug, "/")).headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
    expect((await visit(slug, "/", {}, "POST")).status).toBe(405);
  });

  it("If-None-Match compares weakly (W/ tags, lists) and * matches any existing file, never a missing one", async () => {
    const etag = (await visit(slug, "/a.css")).headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    const weak = await visit(slug, "/a.css", { "if-none-match": `W/${etag}` });
    expect(weak.status).toBe(304);
    expect(weak.body.length).toBe(0);
    expect(weak.headers.etag).toBe(etag);
    expect((await visit(slug, "/a.css", { "if-none-match": `"other", W/${etag}` })).status).toBe(304);
    expect((await visit(slug, "/a.css", { "if-none-match": `W/"${"0".repeat(64)}"` })).status).toBe(200);
    // The tag of another file of the same drop does not revalidate this one.
    const other = (await visit(slug, "/about.html")).headers.etag as string;
    expect(other).not.toBe(etag);
    expect((await visit(slug, "/a.css", { "if-none-match": `W/${other}` })).status).toBe(200);
    expect((await visit(slug, "/a.css", { "if-none-match": "*" })).status).toBe(304);
    const missing = await visit(slug, "/no-such-file.css", { "if-none-match": "*" });
    expect(missing.status).toBe(404);
    expect(missing.text).toBe("custom 404");
  });

  it("drop hosts are answered by the data plane: Content-Length on GET, no framework headers, 308 to the folder", async () => {
    const page = await visit(slug, "/about");
    expect(page.status).toBe(200);
    expect(page.headers["content-length"]).toBe("5");
    expect(page.headers["transfer-encoding"]).toBeUndefined();
    for (const h of [
      "x-powered-by",
      "x-nextjs-cache",
      "x-nextjs-prerender",
      "x-middleware-rewrite",
      "x-dropsite-content-length",
    ])
      expect(page.headers[h]).toBeUndefined();
    expect(page.headers.vary).toBe("Accept-Encoding");
    const folder = await visit(slug, "/docs?a=1");
    expect(folder.status).toBe(308);
    expect(folder.headers.location).toBe("/docs/?a=1");
    const gz = await visit(slug, "/", { "accept-encoding": "gzip" });
    expect(gz.headers["content-length"]).toBe(String(gz.body.length));
  });

  it("malformed escapes: an HTML 400 on drop hosts, the envelope on the app host, never a 500", async () => {
    for (const p of ["/%zz", "/%c0%ae%c0%ae/"]) {
      const drop = await visit(slug, p);
      expect(drop.status).toBe(400);
      expect(drop.headers["content-type"]).toBe("text/html; charset=utf-8");
      const api = await app.request(appHost, p);
      expect(api.status).toBe(400);
      expect((api.json() as { code: string }).code).toBe("invalid_request");
    }
  });

  it("an absolute-form request line is served for the host it names, not the Host header (RFC 9112 3.2.2)", async () => {
    const res = await rawRequest(
      `GET http://${slug}.${app.serveDomain}/docs HTTP/1.1\r\nHost: ${appHost}\r\nConnection: close\r\n\r\n`,
    );
    expect(res).toMatch(/^HTTP\/1\.1 308/);
    expect(res).toMatch(/\r\nlocation: \/docs\/\r\n/i);
    const api = await rawRequest(
      `GET http://${appHost}/limits HTTP/1.1\r\nHost: ${slug}.${app.serveDomain}\r\nConnection: close\r\n\r\n`,
    );
    expect(api).toMatch(/^HTTP\/1\.1 200/);
    expect(api).toContain('"limits"');
    const other = await rawRequest(
      `GET http://other.example/docs HTTP/1.1\r\nHost: ${slug}.${app.serveDomain}\r\nConnection: close\r\n\r\n`,
    );
    // other.example is no active custom domain: the 404 page, never the drop of the Host header.
    expect(other).toMatch(/^HTTP\/1\.1 404/);
  });

  it("a body declared over the route's cap is refused before it is sent", async () => {
    const res = await rawRequest(
      `POST /claim HTTP/1.1\r\nHost: ${appHost}\r\nContent-Type: application/json\r\nContent-Length: 62914560\r\n\r\n`,
    );
    expect(res).toMatch(/^HTTP\/1\.1 413/);
    expect(res).toContain('"code":"payload_too_large"');
  });

  it("six parallel 100 MB bodies to /claim (declared and chunked) leave the app's memory where it was", async () => {
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${app.proc.pid}/status`, "utf8"))?.[1]) * 1024;
    const before = rss();
    const statuses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => sendLarge("/claim", 100 * 1024 * 1024, i % 2 === 0)),
    );
    // Declared lengths are refused by the listener (413); chunked ones meet /claim's credential
    // check (401) or the listener's cut (413), whichever comes first, and the connection is then
    // closed under the still-writing client (0). Neither buffers the body.
    expect(statuses.filter((_, i) => i % 2 === 0)).toEqual([413, 413, 413]);
    for (const s of statuses) expect([0, 401, 413]).toContain(s);
    expect(rss() - before).toBeLessThan(50 * 1024 * 1024);
  });

  it("the app's pages refuse to be framed; drops do not carry that restriction", async () => {
    const home = await app.request(appHost, "/");
    expect(home.headers["x-frame-options"]).toBe("DENY");
    expect(home.headers["content-security-policy"]).toBe("frame-ancestors 'none'");
    const drop = await visit(slug, "/");
    expect(drop.headers["x-frame-options"]).toBeUndefined();
  });

  it("the internal serve path does not exist on the app host", async () => {
    const res = await app.request(appHost, `/api/serve-drop/`);
    expect(res.status).toBe(404);
  });

  it("unknown API paths and wrong methods answer the envelope", async () => {
    const unknown = await app.request(appHost, "/nope");
    expect(unknown.status).toBe(404);
    expect((unknown.json() as { code: string }).code).toBe("not_found");
    const wrong = await app.request(appHost, "/deploy");
    expect(wrong.status).toBe(405);
    expect((wrong.json() as { code: string }).code).toBe("method_not_allowed");
    expect(wrong.headers.allow).toBe("POST");
  });
});

describe("every error the anonymous path can produce, over HTTP, leaves nothing behind", () => {
  const cases: [string, () => Promise<Awaited<ReturnType<typeof deploy>>>, number, string][] = [
    [
      "invalid_request",
      () => deploy(JSON.stringify({ files: { "../x": "x" } }), "application/json"),
      400,
      "invalid_request",
    ],
    ["invalid_ttl", () => deploy("<p>x</p>", "text/html", "?ttl=10"), 400, "invalid_ttl"],
    ["invalid_zip", () => deploy(zipWithSymlink("l", "/etc/passwd"), "application/zip"), 400, "invalid_zip"],
    ["payload_too_large (bomb)", () => deploy(bomb(4 * 1024 * 1024), "application/zip"), 413, "payload_too_large"],
    ["payload_too_large (body)", () => deploy("x".repeat(10 * 1024 * 1024 + 1), "text/html"), 413, "payload_too_large"],
    ["file_cap_exceeded", () => deploy(zip(manyFiles(101)), "application/zip"), 400, "file_cap_exceeded"],
    ["auth_required", () => deploy("<p>x</p>", "text/html", "?name=blog"), 401, "auth_required"],
  ];
  it.each(cases)("%s", async (_n, run, status, code) => {
    const before = await storedBlobs();
    const res = await run();
    expect(res.status).toBe(status);
    expect((res.json() as { code: string }).code).toBe(code);
    expect(await storedBlobs()).toEqual(before);
  });
});

describe("abuse guard over HTTP", () => {
  it("the socket address is what counts; X-Forwarded-For is ignored without TRUST_PROXY", async () => {
    let limited: Awaited<ReturnType<typeof deploy>> | undefined;
    for (let i = 0; i < 25 && !limited; i++) {
      const res = await deploy("<p>x</p>", "text/html", "", {
        "x-forwarded-for": `10.1.0.${ipN++}`,
        "x-dropsite-socket-ip": `10.2.0.${i}`,
      });
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(200);
    }
    expect(limited?.headers["retry-after"]).toBe("60");
    expect((limited?.json() as { code: string }).code).toBe("rate_limited");
  });
});
