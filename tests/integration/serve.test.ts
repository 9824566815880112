import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import * as serveRoute from "@/app/serve-drop/[[...path]]/route";
import { apiRequest, dropRequest, makeTestContext, type TestContext } from "../support/context";

let t: TestContext;
let slug: string;
let bare: string;
const noParams = { params: Promise.resolve({}) };
const video = new Uint8Array(1000).map((_, i) => i % 251);

async function deployFiles(files: Record<string, string | { encoding: "base64"; content: string }>, query = ""): Promise<string> {
  const res = await deployPOST(
    apiRequest(`/deploy${query}`, { method: "POST", body: JSON.stringify({ files }), headers: { "content-type": "application/json" }, ip: `198.51.100.${Math.floor(Math.random() * 250)}` }),
    noParams,
  );
  expect(res.status).toBe(200);
  return (await res.json()).slug;
}

function get(label: string, path: string, headers: Record<string, string> = {}, method = "GET"): Promise<Response> {
  const handler = serveRoute[method as "GET"];
  return handler(dropRequest(label, `/serve-drop${path}`, { headers, method }));
}

beforeAll(async () => {
  t = await makeTestContext();
  slug = await deployFiles({
    "index.html": "<h1>home</h1>",
    "about.html": "<h1>about</h1>",
    "docs/index.html": "<h1>docs</h1>",
    "404.html": "<h1>custom missing</h1>",
    "style.css": "body{color:red}",
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
    ["/docs", "<h1>docs</h1>"],
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
  it("HTML revalidates and assets cache at most 60 s", async () => {
    expect((await get(slug, "/")).headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
    expect((await get(slug, "/style.css")).headers.get("cache-control")).toBe("public, max-age=60");
  });
  it("anonymous drops carry X-Robots-Tag: noindex", async () => {
    expect((await get(slug, "/")).headers.get("x-robots-tag")).toBe("noindex");
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
    const req = new Request("http://localhost:3000/serve-drop/", { headers: { host: "localhost:3000" } });
    const res = await serveRoute.GET(req);
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
});
