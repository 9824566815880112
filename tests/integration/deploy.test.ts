import { beforeEach, describe, expect, it } from "vitest";
import { POST as deployPOST, GET as deployGET } from "@/app/deploy/route";
import { serveGET } from "../support/serve";
import { countDrops, countFiles } from "@/lib/db/queries";
import { deployResponseSchema } from "@/lib/schemas";
import {
  suiteContext,
  clearOfMinuteEdge,
  clockedLimiter,
  freshLimiter,
  apiRequest,
  dropRequest,
} from "../support/context";
import { bomb, manyFiles, text, zip, zipWithSymlink } from "../support/zips";

const noParams = { params: Promise.resolve({}) };
let ipCounter = 0;

const t = suiteContext();
// Each test deploys from its own address so the abuse guard stays out of the way.
beforeEach(async () => {
  await freshLimiter(t);
  ipCounter++;
});

function deploy(
  body: string | Uint8Array | null,
  contentType: string | null,
  query = "",
  headers: Record<string, string> = {},
) {
  const h: Record<string, string> = { ...headers };
  if (contentType) h["content-type"] = contentType;
  return deployPOST(
    apiRequest(`/deploy${query}`, {
      method: "POST",
      body: body as BodyInit | null,
      headers: h,
      ip: `198.51.100.${ipCounter}`,
    }),
    noParams,
  );
}

async function serve(slug: string, path: string, headers: Record<string, string> = {}, method = "GET") {
  return serveGET(dropRequest(slug, `/api/serve-drop${path}`, { headers, method }));
}

async function expectError(res: Response, status: number, code: string) {
  const body = await res.json();
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(typeof body.error).toBe("string");
  return body;
}

async function storedKeys(): Promise<string[]> {
  return t.ctx.storage.list("");
}

/** Runs a request that must be refused and checks nothing was written anywhere. */
async function expectRejectedWithoutTrace(run: () => Promise<Response>, status: number, code: string) {
  const dropsBefore = await countDrops(t.ctx.db);
  const filesBefore = await countFiles(t.ctx.db);
  const keysBefore = await storedKeys();
  const res = await run();
  const body = await expectError(res, status, code);
  expect(await countDrops(t.ctx.db)).toBe(dropsBefore);
  expect(await countFiles(t.ctx.db)).toBe(filesBefore);
  expect(await storedKeys()).toEqual(keysBefore);
  return body;
}

describe("POST /deploy, anonymous", () => {
  it("stores an HTML body as index.html and answers the DeployResponse", async () => {
    const res = await deploy("<h1>Hello</h1>", "text/html");
    expect(res.status).toBe(200);
    const body = await res.json();
    deployResponseSchema.parse(body);
    expect(body.files).toEqual(["index.html"]);
    expect(body.plan).toBe("free");
    expect(body.url).toBe(`http://${body.slug}.drops.localhost:3000/`);
    expect(body.slug).toMatch(/^[a-z2-7]{20}$/);
    expect(body.claim_token).toMatch(/^ct_[A-Za-z0-9_-]{43}$/);
    expect(body).not.toHaveProperty("name");
    expect(body).not.toHaveProperty("replaced");
    // Anonymous default lifetime: 30 days.
    expect(Date.parse(body.expires_at) - t.clock.now).toBe(30 * 86400 * 1000);
    const page = await serve(body.slug, "/");
    expect(page.status).toBe(200);
    expect(await page.text()).toBe("<h1>Hello</h1>");
  });

  it("treats any type that is neither JSON nor zip as HTML", async () => {
    const res = await deploy("plain words", "text/plain");
    expect((await res.json()).files).toEqual(["index.html"]);
  });

  it("stores the claim token only as a hash", async () => {
    const body = await (await deploy("<p>x</p>", "text/html")).json();
    const { findDropBySlug } = await import("@/lib/db/queries");
    const row = await findDropBySlug(t.ctx.db, body.slug);
    expect(row?.claimTokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(body.claim_token);
  });

  it("gives every drop a different unguessable slug", async () => {
    const slugs = new Set<string>();
    for (let i = 0; i < 5; i++) slugs.add((await (await deploy(`<p>${i}</p>`, "text/html")).json()).slug);
    expect(slugs.size).toBe(5);
  });

  it("accepts a FilesBody with text and base64 values", async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    const res = await deploy(
      JSON.stringify({
        files: {
          "index.html": "<h1>files</h1>",
          "./img/logo.png": { encoding: "base64", content: png.toString("base64") },
        },
      }),
      "application/json; charset=utf-8",
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.files.sort()).toEqual(["img/logo.png", "index.html"]);
    const img = await serve(body.slug, "/img/logo.png");
    expect(img.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await img.arrayBuffer())).toEqual(png);
  });

  it("unpacks a zip and strips a single root folder", async () => {
    const res = await deploy(
      zip({ "site/index.html": "<h1>zip</h1>", "site/css/a.css": "body{}", "site/a/b/c.txt": "deep" }),
      "application/zip",
    );
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body.files.sort()).toEqual(["a/b/c.txt", "css/a.css", "index.html"]);
    expect(await (await serve(body.slug, "/a/b/c.txt")).text()).toBe("deep");
  });

  it("keeps nested folders when there is more than one top-level entry", async () => {
    const body = await (
      await deploy(zip({ "index.html": "<h1>root</h1>", "docs/guide/index.html": "guide" }), "application/zip")
    ).json();
    expect(body.files.sort()).toEqual(["docs/guide/index.html", "index.html"]);
    expect(await (await serve(body.slug, "/docs/guide/")).text()).toBe("guide");
  });
});

describe("ttl and name", () => {
  it("honours ttl within the anonymous maximum", async () => {
    const body = await (await deploy("<p>ttl</p>", "text/html", "?ttl=3600")).json();
    expect(Date.parse(body.expires_at) - t.clock.now).toBe(3600 * 1000);
  });
  it.each(["59", "0", "-5", "abc", "1.5", "2592001", ""])("ttl=%s answers 400 invalid_ttl", async (ttl) => {
    await expectRejectedWithoutTrace(() => deploy("<p>x</p>", "text/html", `?ttl=${ttl}`), 400, "invalid_ttl");
  });
  it("name without a credential answers 401 auth_required", async () => {
    const body = await expectRejectedWithoutTrace(
      () => deploy("<p>x</p>", "text/html", "?name=site"),
      401,
      "auth_required",
    );
    expect(body.hint).toBeTruthy();
    expect(body.docs_url).toMatch(/^http:\/\/localhost:3000\/docs#/);
  });
  it("an unrecognised credential answers 401", async () => {
    await expectRejectedWithoutTrace(
      () => deploy("<p>x</p>", "text/html", "", { authorization: "Bearer sp_nope" }),
      401,
      "auth_required",
    );
  });
});

describe("bad bodies change nothing", () => {
  const cases: [string, () => Promise<Response>, number, string][] = [
    ["empty body", () => deploy("", "text/html"), 400, "invalid_request"],
    ["JSON that does not parse", () => deploy("{nope", "application/json"), 400, "invalid_request"],
    ["JSON without files", () => deploy(JSON.stringify({ nope: 1 }), "application/json"), 400, "invalid_request"],
    ["empty files map", () => deploy(JSON.stringify({ files: {} }), "application/json"), 400, "invalid_request"],
    [
      "path with ..",
      () => deploy(JSON.stringify({ files: { "../x.html": "x" } }), "application/json"),
      400,
      "invalid_request",
    ],
    [
      "nested ..",
      () => deploy(JSON.stringify({ files: { "a/../../x.html": "x" } }), "application/json"),
      400,
      "invalid_request",
    ],
    [
      "absolute path",
      () => deploy(JSON.stringify({ files: { "/etc/passwd": "x" } }), "application/json"),
      400,
      "invalid_request",
    ],
    [
      "backslash",
      () => deploy(JSON.stringify({ files: { "a\\b.html": "x" } }), "application/json"),
      400,
      "invalid_request",
    ],
    [
      "NUL byte",
      () => deploy(JSON.stringify({ files: { "a\u0000.html": "x" } }), "application/json"),
      400,
      "invalid_request",
    ],
    [
      "control character",
      () => deploy(JSON.stringify({ files: { "a\u001b.html": "x" } }), "application/json"),
      400,
      "invalid_request",
    ],
    [
      "empty segment",
      () => deploy(JSON.stringify({ files: { "a//b.html": "x" } }), "application/json"),
      400,
      "invalid_request",
    ],
    [
      "trailing slash",
      () => deploy(JSON.stringify({ files: { "a/": "x" } }), "application/json"),
      400,
      "invalid_request",
    ],
    [
      "duplicate after normalisation",
      () => deploy(JSON.stringify({ files: { "a.html": "x", "./a.html": "y" } }), "application/json"),
      400,
      "invalid_request",
    ],
    [
      "NFC and NFD spellings of one name",
      () => deploy(JSON.stringify({ files: { "caf\u00e9.html": "x", "cafe\u0301.html": "y" } }), "application/json"),
      400,
      "invalid_request",
    ],
    [
      "__proto__ key",
      () => deploy('{"files":{"__proto__":"x","index.html":"y"}}', "application/json"),
      400,
      "invalid_request",
    ],
    [
      "__proto__ segment",
      () => deploy(JSON.stringify({ files: { "__proto__/polluted": "x" } }), "application/json"),
      400,
      "invalid_request",
    ],
    [
      "invalid base64",
      () => deploy(JSON.stringify({ files: { "a.bin": { encoding: "base64", content: "@@@@" } } }), "application/json"),
      400,
      "invalid_request",
    ],
    [
      "unknown encoding",
      () => deploy(JSON.stringify({ files: { "a.bin": { encoding: "hex", content: "00" } } }), "application/json"),
      400,
      "invalid_request",
    ],
    [
      "101 files in JSON",
      () => deploy(JSON.stringify({ files: manyFiles(101) }), "application/json"),
      400,
      "file_cap_exceeded",
    ],
    ["a body declared zip that is not one", () => deploy("<h1>not a zip</h1>", "application/zip"), 400, "invalid_zip"],
  ];
  it.each(cases)("%s", async (_name, run, status, code) => {
    await expectRejectedWithoutTrace(run, status, code);
  });

  it("the file cap carries a hint and an upgrade_url", async () => {
    const body = await expectRejectedWithoutTrace(
      () => deploy(JSON.stringify({ files: manyFiles(101) }), "application/json"),
      400,
      "file_cap_exceeded",
    );
    expect(body.hint).toBeTruthy();
    expect(body.upgrade_url).toMatch(/^http:\/\/localhost:3000\//);
  });

  it("accepts exactly 100 files", async () => {
    const res = await deploy(JSON.stringify({ files: manyFiles(100) }), "application/json");
    expect(res.status).toBe(200);
    expect((await res.json()).files).toHaveLength(100);
  });

  it("a non-zip body past 10 MB answers 413 without reading past the cap", async () => {
    let pulled = 0;
    const chunk = new Uint8Array(1024 * 1024).fill(97);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.length;
        if (pulled > 50 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const res = await deployPOST(
      apiRequest("/deploy", {
        method: "POST",
        body: stream,
        headers: { "content-type": "text/html" },
        duplex: "half",
        ip: "198.51.100.250",
      } as RequestInit),
      noParams,
    );
    await expectError(res, 413, "payload_too_large");
    expect(pulled).toBeLessThan(13 * 1024 * 1024);
    expect(await countDrops(t.ctx.db)).toBeGreaterThan(0);
  });

  it("a declared Content-Length past the cap is refused before reading", async () => {
    const res = await deploy("x", "text/html", "", { "content-length": String(11 * 1024 * 1024) });
    await expectError(res, 413, "payload_too_large");
  });
});

describe("hostile zip corpus", () => {
  const cases: [string, () => Uint8Array, number, string][] = [
    ["zip slip (../)", () => zip({ "../../evil.html": "x", "index.html": "y" }), 400, "invalid_request"],
    ["absolute path entry", () => zip({ "/etc/cron.d/x": "x", "index.html": "y" }), 400, "invalid_request"],
    ["backslash entry", () => zip({ "..\\evil.html": "x", "index.html": "y" }), 400, "invalid_request"],
    ["symlink entry", () => zipWithSymlink("link", "/etc/passwd"), 400, "invalid_zip"],
    ["bomb past 4x", () => bomb(8 * 1024 * 1024), 413, "payload_too_large"],
    ["truncated archive", () => zip({ "index.html": "<h1>x</h1>".repeat(100) }).slice(0, 60), 400, "invalid_zip"],
    ["101 entries", () => zip(manyFiles(101)), 400, "file_cap_exceeded"],
    ["only directories", () => zip({ "a/": new Uint8Array(0) }), 400, "invalid_zip"],
  ];
  it.each(cases)("%s", async (_name, make, status, code) => {
    await expectRejectedWithoutTrace(() => deploy(make(), "application/zip"), status, code);
  });

  it("a corrupted entry (CRC mismatch) answers invalid_zip", async () => {
    const z = zip({ "index.html": "hello world, hello world" });
    // Flip a byte of the stored CRC in the central directory.
    const cd = Buffer.from(z).lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    z[cd + 16] = (z[cd + 16]! ^ 0xff) & 0xff;
    await expectRejectedWithoutTrace(() => deploy(z, "application/zip"), 400, "invalid_zip");
  });

  it("directory entries are skipped, files kept", async () => {
    const res = await deploy(zip({ "a/": new Uint8Array(0), "a/index.html": "dir", "b.txt": "b" }), "application/zip");
    expect((await res.json()).files.sort()).toEqual(["a/index.html", "b.txt"]);
  });

  it("a compressible site within 4x deploys", async () => {
    const res = await deploy(zip({ "index.html": text("<p>hello</p>".repeat(10)) }), "application/zip");
    expect(res.status).toBe(200);
  });
});

describe("abuse guard", () => {
  it("answers the 11th deploy in a minute from one address with 429 and Retry-After: 60", async () => {
    t.ctx.limiter = clockedLimiter(t); // moves the clock past the window
    const ip = { "x-dropsite-socket-ip": "192.0.2.99" };
    for (let i = 0; i < 10; i++) expect((await deploy("<p>x</p>", "text/html", "", ip)).status).toBe(200);
    const res = await deploy("<p>x</p>", "text/html", "", ip);
    await expectError(res, 429, "rate_limited");
    expect(res.headers.get("retry-after")).toBe("60");
    // Another address is unaffected; a minute later the first may deploy again.
    expect((await deploy("<p>x</p>", "text/html", "", { "x-dropsite-socket-ip": "192.0.2.100" })).status).toBe(200);
    t.clock.advance(61);
    expect((await deploy("<p>x</p>", "text/html", "", ip)).status).toBe(200);
  });

  it("requests refused for their input do not use the deploy budget; they have their own, higher one", async () => {
    t.ctx.limiter = clockedLimiter(t); // moves the clock into the window
    const ip = { "x-dropsite-socket-ip": "192.0.2.120" };
    // 59 refused attempts (bad ttl, bad JSON, empty body) leave all 10 deploys available.
    for (let i = 0; i < 59; i++) {
      const res =
        i % 3 === 0
          ? await deploy("<p>x</p>", "text/html", "?ttl=5", ip)
          : i % 3 === 1
            ? await deploy("{", "application/json", "", ip)
            : await deploy("", "text/html", "", ip);
      expect(res.status).toBe(400);
    }
    for (let i = 0; i < 10; i++) expect((await deploy("<p>x</p>", "text/html", "", ip)).status).toBe(200);
    await expectError(await deploy("<p>x</p>", "text/html", "", ip), 429, "rate_limited");
    // The 60th refused request spends the refused-request budget (6 x 10 a minute): then even a
    // valid deploy from that address is refused, with the limiter's real wait.
    const other = { "x-dropsite-socket-ip": "192.0.2.121" };
    for (let i = 0; i < 60; i++) expect((await deploy("<p>x</p>", "text/html", "?ttl=5", other)).status).toBe(400);
    t.clock.advance(20);
    const res = await deploy("<p>x</p>", "text/html", "", other);
    await expectError(res, 429, "rate_limited");
    expect(res.headers.get("retry-after")).toBe("40");
    expect(await countDrops(t.ctx.db)).toBeGreaterThan(0);
  });

  it("one address however written: an IPv4-mapped spelling shares the IPv4 budget, and one IPv6 /64 is one budget", async () => {
    t.ctx.limiter = clockedLimiter(t);
    const from = (ip: string) => deploy("<p>x</p>", "text/html", "", { "x-dropsite-socket-ip": ip });
    for (let i = 0; i < 5; i++) expect((await from("192.0.2.180")).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await from("::ffff:192.0.2.180")).status).toBe(200);
    await expectError(await from("::FFFF:c000:02b4"), 429, "rate_limited");
    await expectError(await from("192.0.2.180"), 429, "rate_limited");
    // Ten IPv6 addresses of one /64, written every way: the eleventh deploy is refused.
    for (let i = 1; i <= 10; i++) {
      const ip = i % 2 ? `2001:db8:5:7::${i.toString(16)}` : `2001:0DB8:0005:0007:0:0:${i.toString(16)}:1`;
      expect((await from(ip)).status, ip).toBe(200);
    }
    await expectError(await from("2001:db8:5:7:ffff:ffff:ffff:ffff"), 429, "rate_limited");
    // The next /64 is another client.
    expect((await from("2001:db8:5:8::1")).status).toBe(200);
  });

  it("ignores X-Forwarded-For unless TRUST_PROXY is on", async () => {
    await clearOfMinuteEdge(t);
    const sock = { "x-dropsite-socket-ip": "192.0.2.150" };
    for (let i = 0; i < 10; i++) {
      expect((await deploy("<p>x</p>", "text/html", "", { ...sock, "x-forwarded-for": `10.0.0.${i}` })).status).toBe(
        200,
      );
    }
    await expectError(
      await deploy("<p>x</p>", "text/html", "", { ...sock, "x-forwarded-for": "10.0.0.77" }),
      429,
      "rate_limited",
    );
    // On the hosted stack that limit was counted by @upstash/ratelimit through the Upstash stand-in.
    if (t.hosted)
      expect(t.hosted.upstash.commands.filter(([cmd]) => cmd?.startsWith("EVAL")).length).toBeGreaterThan(0);
  });

  it("found: behind one trusted proxy that appends the real address, a client cannot pick its own by writing X-Forwarded-For", async () => {
    await clearOfMinuteEdge(t);
    const saved = t.ctx.env;
    t.ctx.env = { ...saved, TRUST_PROXY: true, TRUST_PROXY_HOPS: 1 };
    try {
      const proxy = { "x-dropsite-socket-ip": "10.9.9.9" };
      for (let i = 0; i < 10; i++) {
        expect(
          (await deploy("<p>x</p>", "text/html", "", { ...proxy, "x-forwarded-for": `6.6.6.${i}, 203.0.113.50` }))
            .status,
        ).toBe(200);
      }
      await expectError(
        await deploy("<p>x</p>", "text/html", "", { ...proxy, "x-forwarded-for": "6.6.6.77, 203.0.113.50" }),
        429,
        "rate_limited",
      );
      // Another real client behind the same proxy is unaffected.
      expect((await deploy("<p>x</p>", "text/html", "", { ...proxy, "x-forwarded-for": "203.0.113.51" })).status).toBe(
        200,
      );
    } finally {
      t.ctx.env = saved;
    }
  });
});

describe("method and path errors", () => {
  it("GET /deploy answers 405 method_not_allowed with Allow", async () => {
    const res = await deployGET(apiRequest("/deploy"), noParams);
    await expectError(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe("POST");
  });
  it("unknown API paths answer 404 not_found in the envelope", async () => {
    const { GET } = await import("@/app/[...path]/route");
    await expectError(GET(), 404, "not_found");
  });
});
