import { randomBytes } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import { POST as appendPOST } from "@/app/deploy/[slug]/route";
import { GET as dropsGET } from "@/app/drops/route";
import { DELETE as dropDELETE } from "@/app/drops/[slug]/route";
import { POST as keysPOST } from "@/app/keys/route";
import { DELETE as keyDELETE } from "@/app/keys/[id]/route";
import { POST as claimPOST } from "@/app/claim/route";
import { accounts, apiKeys } from "@/lib/db/schema";
import { databaseError } from "@/lib/db/errors";
import { INPUT_LIMITS } from "@/lib/input";
import { listDrops } from "@/lib/drops/manage";
import { dashboardPageSchema } from "@/lib/schemas";
import { accountWithKey, bearer } from "../support/accounts";
import { postDeploy } from "../support/deploy";
import { oidcSuite } from "../support/oidc";
import { zip } from "../support/zips";
import { serveGET } from "../support/serve";
import { countDrops, countFiles } from "@/lib/db/queries";
import { isBase64, findDuplicateKey } from "@/lib/deploy/json";
import { apiRequest, dropRequest } from "../support/context";

// Hostile input found by an outside attack run (issue 15): each class is refused with the right
// envelope and leaves nothing in the database or storage.

const { t, oidc } = oidcSuite({}, { freshLimiter: true });
const noParams = { params: Promise.resolve({}) };
let ip = 0;

beforeEach(() => {
  ip++;
});

/** POST /deploy from this test's own address. */
const deploy = (body: BodyInit, contentType: string, query = "", headers: Record<string, string> = {}) =>
  postDeploy(body, contentType, { query, headers, ip: `198.51.100.${ip % 250}` });

async function snapshot() {
  return {
    drops: await countDrops(t.ctx.db),
    files: await countFiles(t.ctx.db),
    accounts: (await t.ctx.db.select().from(accounts)).length,
    keys: (await t.ctx.db.select().from(apiKeys)).length,
    stored: (await t.ctx.storage.list("")).sort(),
  };
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
    const res = await deploy(
      JSON.stringify({
        files: { "index.html": "<p>x</p>", "big.bin": { encoding: "base64", content: bytes.toString("base64") } },
      }),
      "application/json",
    );
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    const served = await serveGET(dropRequest(body.slug, "/api/serve-drop/big.bin"));
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("found: invalid base64 of several MB is 400 invalid_request, not 500", async () => {
    const good = randomBytes(6 * 1024 * 1024).toString("base64");
    for (const content of [
      `${good.slice(0, -4)}@@@@`,
      `${good}A`,
      `!${good.slice(1)}`,
      `${good.slice(0, 1000)}\n${good.slice(1000, -1)}`,
    ]) {
      await refusedWithoutTrace(
        () => deploy(JSON.stringify({ files: { "a.bin": { encoding: "base64", content } } }), "application/json"),
        400,
        "invalid_request",
      );
    }
  });

  it("isBase64 accepts exactly standard padded base64", () => {
    for (const n of [0, 1, 2, 3, 4, 5, 100]) expect(isBase64(randomBytes(n).toString("base64"))).toBe(true);
    for (const s of [
      "A",
      "AB",
      "ABC",
      "A===",
      "====",
      "AB=C",
      "AB==AB==",
      "ab-_",
      "AAA=\n",
      "Zm9v\u00e9AAA",
      "AA==" + "=",
      "A=AA",
    ])
      expect(isBase64(s), s).toBe(false);
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
    await refusedWithoutTrace(
      () => deploy('{"files":{"index.html":"a","x.html":"b","index.html":"c"}}', "application/json"),
      400,
      "invalid_request",
    );
  });
});

describe("NUL bytes and control characters never reach PostgreSQL", () => {
  const nulSlug = "abc\u0000def";
  it("found: a slug with NUL in DELETE /drops, POST /deploy/{slug} and POST /claim is 404, not 503", async () => {
    const a = await accountWithKey(t.ctx, "pro");
    for (const slug of [nulSlug, "a".repeat(5000), "abcdefghijklmnopqrs\u0000", "ABCDEFGHIJKLMNOPQRST"]) {
      await refusedWithoutTrace(
        () =>
          dropDELETE(apiRequest(`/drops/x`, { method: "DELETE", headers: bearer(a.apiKey) }), {
            params: Promise.resolve({ slug }),
          }),
        404,
        "not_found",
      );
      await refusedWithoutTrace(
        () =>
          appendPOST(
            apiRequest(`/deploy/x`, {
              method: "POST",
              body: "<p>x</p>",
              headers: { ...bearer(a.apiKey), "content-type": "text/html" },
            }),
            { params: Promise.resolve({ slug }) },
          ),
        404,
        "not_found",
      );
    }
    for (const body of [
      { slug: nulSlug, claim_token: "ct_x" },
      { slug: "abcdefghijklmnopqrst", claim_token: "ct_\u0000" },
    ]) {
      await refusedWithoutTrace(
        () =>
          claimPOST(
            apiRequest("/claim", {
              method: "POST",
              body: JSON.stringify(body),
              headers: bearer(a.apiKey),
              ip: `192.0.2.${ip}`,
            }),
            noParams,
          ),
        404,
        "not_found",
      );
    }
    await refusedWithoutTrace(
      () =>
        keyDELETE(apiRequest("/keys/x", { method: "DELETE", headers: bearer(a.apiKey) }), {
          params: Promise.resolve({ id: "\u0000".repeat(64) }),
        }),
      404,
      "not_found",
    );
  });

  it("found: a key note with NUL or other control characters, or past 200 bytes, is 400", async () => {
    const token = await oidc.mintIdToken({ sub: "noter", iat: new Date(t.clock.now) });
    // The first use of the token creates the account; then each bad note changes nothing.
    expect((await dropsGET(apiRequest("/drops", { headers: bearer(token) }), noParams)).status).toBe(200);
    for (const note of ["a\u0000b", "line\nbreak", "\u009b", "é".repeat(101)]) {
      await refusedWithoutTrace(
        () =>
          keysPOST(
            apiRequest("/keys", { method: "POST", body: JSON.stringify({ note }), headers: bearer(token) }),
            noParams,
          ),
        400,
        "invalid_request",
      );
    }
    const ok = await keysPOST(
      apiRequest("/keys", { method: "POST", body: JSON.stringify({ note: "é".repeat(100) }), headers: bearer(token) }),
      noParams,
    );
    expect(ok.status).toBe(201);
  });

  it("found: an ID token whose sub or email holds a NUL is 401, not 503, and creates no account", async () => {
    for (const claims of [
      { sub: "evil\u0000" },
      { sub: "x".repeat(300) },
      { sub: "fine", email: "a\u0000@example.test" },
    ]) {
      const token = await oidc.mintIdToken({ ...claims, iat: new Date(t.clock.now) });
      await refusedWithoutTrace(
        () => dropsGET(apiRequest("/drops", { headers: bearer(token) }), noParams),
        401,
        "auth_required",
      );
    }
  });

  it("a list offset past the int4 range is 400 from the query check, not a database error", async () => {
    const a = await accountWithKey(t.ctx);
    const res = await dropsGET(
      apiRequest("/drops?offset=99999999999999999999", { headers: bearer(a.apiKey) }),
      noParams,
    );
    expect({ status: res.status, code: (await res.json()).code }).toEqual({ status: 400, code: "invalid_request" });
  });

  it("found: the dashboard's page arithmetic past any real offset lists an empty page, not a database error", async () => {
    const a = await accountWithKey(t.ctx);
    const page = await listDrops(t.ctx, a.account, { limit: 20, offset: (Number("99999999999999999999") - 1) * 20 });
    expect(page).toEqual({ total: 0, drops: [] });
    expect(dashboardPageSchema(20).parse("99999999999999999999")).toBe(1);
    expect(dashboardPageSchema(20).parse("3")).toBe(3);
    expect(dashboardPageSchema(20).parse("-2")).toBe(1);
  });

  it("the database error mapping: data exceptions are 400, constraint violations 409, anything else 503 with Retry-After", () => {
    const wrapped = (code: string) =>
      Object.assign(new Error("query failed"), { cause: Object.assign(new Error("pg"), { code }) });
    expect(databaseError(wrapped("22021")).status).toBe(400);
    expect(databaseError(wrapped("22003")).status).toBe(400);
    expect(databaseError(wrapped("23505")).status).toBe(409);
    const down = databaseError(new Error("connect ECONNREFUSED"));
    expect(down.status).toBe(503);
    expect(down.headers["Retry-After"]).toBeTruthy();
    expect(databaseError(wrapped("57P01")).status).toBe(503);
  });
});

describe("path limits", () => {
  it(`found: a segment over ${INPUT_LIMITS.segmentBytes} bytes (ASCII or two-byte characters) is 400 and leaves nothing in storage`, async () => {
    for (const name of [
      "a".repeat(INPUT_LIMITS.segmentBytes + 1),
      "é".repeat(INPUT_LIMITS.segmentBytes / 2 + 1),
      "é".repeat(120),
      "x".repeat(238),
    ]) {
      await refusedWithoutTrace(
        () => deploy(JSON.stringify({ files: { [`dir/${name}`]: "x" } }), "application/json"),
        400,
        "invalid_request",
      );
    }
    const longPath = Array.from({ length: 6 }, () => "d".repeat(180)).join("/");
    await refusedWithoutTrace(
      () => deploy(JSON.stringify({ files: { [longPath]: "x" } }), "application/json"),
      400,
      "invalid_request",
    );
    const fits = await deploy(
      JSON.stringify({
        files: { ["é".repeat(INPUT_LIMITS.segmentBytes / 2)]: "x", [`${"d".repeat(200)}/${"e".repeat(200)}`]: "y" },
      }),
      "application/json",
    );
    expect(fits.status).toBe(200);
  });

  it("found: a zip whose single root is .., C: or / is refused before the root is stripped", async () => {
    for (const names of [
      ["../index.html", "../a.html"],
      ["C:/index.html", "C:/a.html"],
      ["./C:/index.html", "./C:/a.html"],
      ["/index.html"],
      ["..\\index.html"],
    ]) {
      const files = Object.fromEntries(names.map((n) => [n, "x"]));
      await refusedWithoutTrace(() => deploy(zip(files) as BodyInit, "application/zip"), 400, "invalid_request");
    }
    const rooted = await deploy(zip({ "site/index.html": "x", "site/a/b.html": "y" }) as BodyInit, "application/zip");
    expect((await rooted.json()).files.sort()).toEqual(["a/b.html", "index.html"]);
  });
});

describe("credentials", () => {
  it("found: two Authorization headers are 401 on every route, POST /deploy included, and change nothing", async () => {
    const a = await accountWithKey(t.ctx, "pro");
    const b = await accountWithKey(t.ctx, "pro");
    const two = () => {
      const h = new Headers({ "content-type": "text/html" });
      h.append("authorization", `Bearer ${a.apiKey}`);
      h.append("authorization", `Bearer ${b.apiKey}`);
      return h;
    };
    await refusedWithoutTrace(
      () =>
        deployPOST(
          apiRequest("/deploy", { method: "POST", body: "<p>x</p>", headers: two(), ip: `192.0.2.${ip}` }),
          noParams,
        ),
      401,
      "auth_required",
    );
    await refusedWithoutTrace(() => dropsGET(apiRequest("/drops", { headers: two() }), noParams), 401, "auth_required");
    await refusedWithoutTrace(
      () => keysPOST(apiRequest("/keys", { method: "POST", headers: two() }), noParams),
      401,
      "auth_required",
    );
    await refusedWithoutTrace(
      () => claimPOST(apiRequest("/claim", { method: "POST", body: "{}", headers: two() }), noParams),
      401,
      "auth_required",
    );
  });

  it("a malformed Authorization header on POST /deploy is 401, never an anonymous deploy", async () => {
    for (const authorization of [
      "Bearer",
      "Bearer ",
      "Basic abc",
      "Bearer a b",
      "sp_x",
      "Bearer sp_short",
      "Bearer a,b",
    ]) {
      await refusedWithoutTrace(() => deploy("<p>x</p>", "text/html", "", { authorization }), 401, "auth_required");
    }
  });
});
