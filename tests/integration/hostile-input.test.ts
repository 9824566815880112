import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import { GET as serveGET } from "@/app/serve-drop/[[...path]]/route";
import { countDrops, countFiles } from "@/lib/db/queries";
import { isBase64, findDuplicateKey } from "@/lib/deploy/json";
import { MemoryRateLimiter } from "@/lib/ratelimit/memory";
import { apiRequest, dropRequest, makeTestContext, type TestContext } from "../support/context";

// Hostile input found by an outside attack run (issue 15): each class is refused with the right
// envelope and leaves nothing in the database or storage.

let t: TestContext;
const noParams = { params: Promise.resolve({}) };
let ip = 0;

beforeAll(async () => {
  t = await makeTestContext();
});
afterAll(async () => {
  await t.close();
});
beforeEach(() => {
  t.ctx.limiter = new MemoryRateLimiter(() => t.clock.now);
  ip++;
});

function deploy(body: BodyInit, contentType: string, query = "", headers: Record<string, string> = {}) {
  return deployPOST(apiRequest(`/deploy${query}`, { method: "POST", body, headers: { "content-type": contentType, ...headers }, ip: `198.51.100.${ip % 250}` }), noParams);
}

async function snapshot() {
  return { drops: await countDrops(t.ctx.db), files: await countFiles(t.ctx.db), stored: (await t.ctx.storage.list("")).sort() };
}

/** The response is the given error, and nothing changed in the tables or the store. */
async function refusedWithoutTrace(run: () => Promise<Response>, status: number, code: string) {
  const before = await snapshot();
  const res = await run();
  const body = await res.json();
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(await snapshot()).toEqual(before);
  return body;
}

describe("large base64 files", () => {
  it("found: a 7 MB binary in the JSON form deploys and is served byte for byte (was 500 from a regex)", async () => {
    const bytes = randomBytes(7 * 1024 * 1024);
    const res = await deploy(JSON.stringify({ files: { "index.html": "<p>x</p>", "big.bin": { encoding: "base64", content: bytes.toString("base64") } } }), "application/json");
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    const served = await serveGET(dropRequest(body.slug, "/serve-drop/big.bin"));
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("found: invalid base64 of several MB is 400 invalid_request, not 500", async () => {
    const good = randomBytes(6 * 1024 * 1024).toString("base64");
    for (const content of [`${good.slice(0, -4)}@@@@`, `${good}A`, `!${good.slice(1)}`, `${good.slice(0, 1000)}\n${good.slice(1000, -1)}`]) {
      await refusedWithoutTrace(() => deploy(JSON.stringify({ files: { "a.bin": { encoding: "base64", content } } }), "application/json"), 400, "invalid_request");
    }
  });

  it("isBase64 accepts exactly standard padded base64", () => {
    for (const n of [0, 1, 2, 3, 4, 5, 100]) expect(isBase64(randomBytes(n).toString("base64"))).toBe(true);
    for (const s of ["A", "AB", "ABC", "A===", "====", "AB=C", "AB==AB==", "ab-_", "AAA=\n", "Zm9v\u00e9AAA", "AA=="+"=", "A=AA"]) expect(isBase64(s), s).toBe(false);
  });
});

describe("duplicate keys", () => {
  it("findDuplicateKey names the first repeated key and its object, escapes decoded", () => {
    expect(findDuplicateKey('{"a":1,"b":{"x":1,"y":[{"z":1,"z":2}]}}')).toEqual({ key: "z", path: ["b", "y", "[]"] });
    expect(findDuplicateKey('{"a":"\\"a\\"","\\u0061":2}')).toEqual({ key: "a", path: [] });
    expect(findDuplicateKey('{"a":{"k":1},"b":{"k":1},"c":["k","k"]}')).toBeNull();
    expect(findDuplicateKey('{"a\\\\":1,"a":2}')).toBeNull();
  });

  it("a files map with one path twice is refused and stores nothing", async () => {
    await refusedWithoutTrace(() => deploy('{"files":{"index.html":"a","x.html":"b","index.html":"c"}}', "application/json"), 400, "invalid_request");
  });
});
