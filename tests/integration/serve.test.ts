import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import { serveGET } from "../support/serve";
import { apiRequest, dropRequest, makeTestContext, type TestContext } from "../support/context";

let t: TestContext;
let slug: string;
let bare: string;
const noParams = { params: Promise.resolve({}) };
const video = new Uint8Array(1000).map((_, i) => i % 251);

async function deployFiles(
  files: Record<string, string | { encoding: "base64"; content: string }>,
  query = "",
): Promise<string> {
  const res = await deployPOST(
    apiRequest(`/deploy${query}`, {
      method: "POST",
      body: JSON.stringify({ files }),
      headers: { "content-type": "application/json" },
      ip: `198.51.100.${Math.floor(Math.random() * 250)}`,
    }),
    noParams,
  );
  expect(res.status).toBe(200);
  return (await res.json()).slug;
}

function get(label: string, path: string, headers: Record<string, string> = {}, method = "GET"): Promise<Response> {
  return serveGET(dropRequest(label, `/api/serve-drop${path}`, { headers, method }));
}

beforeAll(async () => {
  t = await makeTestContext();
  slug = await deployFiles({
    "index.html": "<h1>home</h1>",
    "about.html": "<h1>about</h1>",
    "docs/index.html": "<h1>docs</h1>",
    "404.html": "<h1>custom missing</h1>",
    "style.css": "body{color:red}",
    "app.3f9a1c2b.js": "hashed()",
    "index-BXn3k9Qa.css": "p{}",
    "chunk.8f2e4d.woff2": "font",
    "my-component.js": "c()",
    "big.txt": "lorem ipsum dolor sit amet ".repeat(400),
    "app.js": "console.log(1)",
    "data.json": '{"a":1}',
    "_next/static/chunk.js": "chunk",
    "api/hello": "drop api file",
    "caf\u00e9.html": "coffee",
    "clip.mp4": { encoding: "base64", content: Buffer.from(video).toString("base64") },
  });
  bare = await deployFiles({ "index.html": "<p>bare</p>" });
});
afterAll(async () => {
  await t.close();
});

describe("which file answers a path", () => {
  it.each([
    ["/", "<h1>home</h1>"],
    ["/index.html", "<h1>home</h1>"],
    ["/about", "<h1>about</h1>"],
    ["/about.html", "<h1>about</h1>"],
    ["/docs/", "<h1>docs</h1>"],
    ["/_next/static/chunk.js", "chunk"],
    ["/api/hello", "drop api file"],
    ["/caf%C3%A9.html", "coffee"],
    ["/cafe%CC%81", "coffee"],
  ])("%s", async (path, expected) => {
    const res = await get(slug, path);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(expected);
  });

  it("a missing path serves the drop's 404.html with status 404", async () => {
    const res = await get(slug, "/nope");
    expect(res.status).toBe(404);
    expect(await res.text()).toBe("<h1>custom missing</h1>");
  });
  it("without a 404.html a missing path gets a plain 404 page", async () => {
    const res = await get(bare, "/nope");
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("Not found");
  });
  it("an unknown slug is 404", async () => {
    expect((await get("doesnotexist23", "/")).status).toBe(404);
  });
  it("a folder without its slash answers 308 to the slash, query kept, as a path on the same host", async () => {
    const res = await get(slug, "/docs?x=1&y=%2F");
    expect(res.status).toBe(308);
    expect(res.headers.get("location")).toBe("/docs/?x=1&y=%2F");
    expect(res.headers.get("content-length")).toBe("0");
    // A protocol-relative look-alike stays a path of this host.
    const evil = await deployFiles({ "evil.example/index.html": "x" });
    const r2 = await get(evil, "//evil.example");
    expect(r2.status).toBe(308);
    expect(r2.headers.get("location")).toBe("/evil.example/");
  });
  it("a file or .html of the same name wins over the folder", async () => {
    const both = await deployFiles({ "guide.html": "guide page", "guide/index.html": "guide folder" });
    const res = await get(both, "/guide");
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("guide page");
  });
  it.each(["/%zz", "/%c0%ae%c0%ae/", "/a%"])("a malformed escape %s answers a 400 HTML page", async (p) => {
    const res = await get(slug, p);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await res.text()).toContain("Bad request");
  });
  it("an encoded slash cannot smuggle a path", async () => {
    expect((await get(slug, "/docs%2f..%2f..%2findex.html")).status).toBe(404);
  });
});

describe("headers", () => {
  it.each([
    ["/", "text/html; charset=utf-8"],
    ["/style.css", "text/css; charset=utf-8"],
    ["/app.js", "text/javascript; charset=utf-8"],
    ["/data.json", "application/json; charset=utf-8"],
    ["/clip.mp4", "video/mp4"],
  ])("%s has Content-Type %s and nosniff", async (path, type) => {
    const res = await get(slug, path);
    expect(res.headers.get("content-type")).toBe(type);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
  it("HTML and unhashed names revalidate by ETag; hashed names are immutable", async () => {
    expect((await get(slug, "/")).headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
    expect((await get(slug, "/style.css")).headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
    for (const p of ["/app.3f9a1c2b.js", "/index-BXn3k9Qa.css", "/chunk.8f2e4d.woff2"]) {
      const res = await get(slug, p);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    }
    // A word in the name is not a hash; the 404 page of a hashed-looking missing name is not immutable.
    expect((await get(slug, "/my-component.js")).headers.get("cache-control")).toBe(
      "public, max-age=0, must-revalidate",
    );
    expect((await get(slug, "/gone.3f9a1c2b.js")).headers.get("cache-control")).toBe(
      "public, max-age=0, must-revalidate",
    );
  });
  it("the CDN may keep a response, never past the drop's expires_at", async () => {
    // The anonymous drop expires in 30 days: the CDN keeps hashed names until expiry; HTML is
    // revalidated at the origin on every view while views are counted (STATS, on by default).
    expect((await get(slug, "/")).headers.get("vercel-cdn-cache-control")).toBe("max-age=0, must-revalidate");
    expect((await get(slug, "/app.3f9a1c2b.js")).headers.get("vercel-cdn-cache-control")).toBe(`max-age=${30 * 86400}`);
    const short = await deployFiles({ "index.html": "<p>short</p>", "app.3f9a1c2b.js": "1" }, "?ttl=120");
    expect((await get(short, "/")).headers.get("vercel-cdn-cache-control")).toBe("max-age=0, must-revalidate");
    expect((await get(short, "/app.3f9a1c2b.js")).headers.get("vercel-cdn-cache-control")).toBe("max-age=120");
    expect((await get("doesnotexist23", "/")).headers.get("vercel-cdn-cache-control")).toBeNull();
  });
  it("a full GET carries Content-Length and no framework headers", async () => {
    const res = await get(slug, "/about");
    expect(res.headers.get("content-length")).toBe(String("<h1>about</h1>".length));
    for (const h of ["vary", "x-powered-by", "x-nextjs-cache", "x-middleware-rewrite"]) {
      if (h === "vary") expect(res.headers.get(h)).toBe("Accept-Encoding");
      else expect(res.headers.get(h)).toBeNull();
    }
  });
  it("anonymous drops carry X-Robots-Tag: noindex", async () => {
    expect((await get(slug, "/")).headers.get("x-robots-tag")).toBe("noindex");
  });
});

describe("single-page apps", () => {
  let spa: string;
  beforeAll(async () => {
    spa = await deployFiles({
      "index.html": "home",
      "200.html": "<div id=app></div>",
      "404.html": "missing",
      "main.js": "boot()",
    });
  });
  it.each(["/settings", "/users/42", "/deep/route/"])("an unknown route %s serves 200.html with 200", async (p) => {
    const res = await get(spa, p);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("<div id=app></div>");
  });
  it.each(["/missing.js", "/app.css", "/x.map", "/data.json", "/logo.png", "/font.woff2"])(
    "an unknown asset %s stays 404",
    async (p) => {
      const res = await get(spa, p);
      expect(res.status).toBe(404);
      expect(await res.text()).toBe("missing");
    },
  );
  it("existing files still answer themselves", async () => {
    expect(await (await get(spa, "/")).text()).toBe("home");
    expect(await (await get(spa, "/main.js")).text()).toBe("boot()");
  });
});

describe("compression", () => {
  it("text is sent br or gzip when accepted, and decompresses to the stored bytes", async () => {
    const stored = "lorem ipsum dolor sit amet ".repeat(400);
    const br = await get(slug, "/big.txt", { "accept-encoding": "gzip, deflate, br" });
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(br.headers.get("vary")).toBe("Accept-Encoding");
    const brBytes = Buffer.from(await br.arrayBuffer());
    expect(br.headers.get("content-length")).toBe(String(brBytes.byteLength));
    expect(brBytes.byteLength).toBeLessThan(stored.length);
    expect(brotliDecompressSync(brBytes).toString()).toBe(stored);
    const gz = await get(slug, "/big.txt", { "accept-encoding": "gzip" });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe(stored);
    const plain = await get(slug, "/big.txt");
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(stored);
    // One ETag per encoding, each revalidating its own representation.
    const tags = [br, gz, plain].map((r) => r.headers.get("etag"));
    expect(new Set(tags).size).toBe(3);
    expect((await get(slug, "/big.txt", { "accept-encoding": "br", "if-none-match": tags[0]! })).status).toBe(304);
    expect((await get(slug, "/big.txt", { "accept-encoding": "br", "if-none-match": tags[2]! })).status).toBe(200);
  });
  it("q=0 refuses an encoding; binary types are never compressed; ranges are on the identity bytes", async () => {
    expect((await get(slug, "/big.txt", { "accept-encoding": "br;q=0, gzip" })).headers.get("content-encoding")).toBe(
      "gzip",
    );
    const mp4 = await get(slug, "/clip.mp4", { "accept-encoding": "br" });
    expect(mp4.headers.get("content-encoding")).toBeNull();
    expect(mp4.headers.get("vary")).toBeNull();
    const part = await get(slug, "/big.txt", { "accept-encoding": "br", range: "bytes=0-4" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-encoding")).toBeNull();
    expect(await part.text()).toBe("lorem");
  });
});

describe("conditional and partial requests", () => {
  it("a strong ETag and 304 on If-None-Match", async () => {
    const first = await get(slug, "/style.css");
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    const again = await get(slug, "/style.css", { "if-none-match": etag! });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect((await get(slug, "/style.css", { "if-none-match": '"other"' })).status).toBe(200);
  });
  it("HEAD has the headers and no body", async () => {
    const res = await get(slug, "/clip.mp4", {}, "HEAD");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe("1000");
    expect(await res.text()).toBe("");
  });
  it("a byte range answers 206 with exactly those bytes", async () => {
    const res = await get(slug, "/clip.mp4", { range: "bytes=100-199" });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe("bytes 100-199/1000");
    expect(res.headers.get("content-length")).toBe("100");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(video.slice(100, 200));
  });
  it("a suffix range", async () => {
    const res = await get(slug, "/clip.mp4", { range: "bytes=-10" });
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(video.slice(990));
  });
  it("an unsatisfiable range answers 416", async () => {
    const res = await get(slug, "/clip.mp4", { range: "bytes=5000-" });
    expect(res.status).toBe(416);
    expect(res.headers.get("content-range")).toBe("bytes */1000");
  });
  it("If-Range with another ETag sends the whole file", async () => {
    const res = await get(slug, "/clip.mp4", { range: "bytes=0-9", "if-range": '"old"' });
    expect(res.status).toBe(200);
    expect((await res.arrayBuffer()).byteLength).toBe(1000);
  });
});

describe("methods, hosts and expiry", () => {
  it("POST to a drop answers 405 with Allow", async () => {
    const res = await get(slug, "/", {}, "POST");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
  });
  it("the serve route on the app host is 404", async () => {
    const req = new Request("http://localhost:3000/api/serve-drop/", { headers: { host: "localhost:3000" } });
    const res = await serveGET(req);
    expect(res.status).toBe(404);
  });
  it("an expired drop answers 410", async () => {
    const short = await deployFiles({ "index.html": "<p>short</p>" }, "?ttl=60");
    expect((await get(short, "/")).status).toBe(200);
    t.clock.advance(61);
    const res = await get(short, "/");
    expect(res.status).toBe(410);
    expect(await res.text()).toContain("expired");
  });
  it("the 410 page of an unclaimed anonymous drop says its owner can still claim it, and until when", async () => {
    const short = await deployFiles({ "index.html": "<p>short</p>" }, "?ttl=60");
    t.clock.advance(61);
    const text = await (await get(short, "/")).text();
    expect(text).toContain("can still claim it");
    expect(text).toMatch(/until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
  });
});
