import { describe, expect, it } from "vitest";
import { count } from "drizzle-orm";
import { POST as deployPOST } from "@/app/deploy/route";
import { POST as preflightPOST } from "@/app/deploy/preflight/route";
import { POST as claimPOST } from "@/app/claim/route";
import { contents, drops } from "@/lib/db/schema";
import { limits } from "@/lib/plans";
import { suiteContext, apiRequest } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";

// The REST envelope carries an error's facts as fields (limit, allowed, plan, field) beside the
// contract's {error, code, hint?, upgrade_url?, docs_url?}; each refusal changes nothing.

const t = suiteContext({ RATE_LIMIT_DEPLOYS_PER_MINUTE: "1000" }, { freshLimiter: true });
const noParams = { params: Promise.resolve({}) };
let ip = 0;
const json = { "content-type": "application/json" };

async function state() {
  const [d] = await t.ctx.db.select({ n: count() }).from(drops);
  const [c] = await t.ctx.db.select({ n: count() }).from(contents);
  return { drops: d!.n, contents: c!.n };
}

async function refused(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  // The contract's fields are all still there, as before.
  expect(body).toMatchObject({ error: expect.any(String), code });
  return body;
}

describe("errors carry their facts in the REST envelope", () => {
  it("too many files: 400 file_cap_exceeded with limit files_per_request and the plan's allowed count", async () => {
    const before = await state();
    const n = limits.anonymous.filesPerRequest + 1;
    const files = Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}.txt`, "x"]));
    const res = await deployPOST(
      apiRequest("/deploy", {
        method: "POST",
        body: JSON.stringify({ files }),
        headers: json,
        ip: `203.0.113.${++ip}`,
      }),
      noParams,
    );
    const body = await refused(res, 400, "file_cap_exceeded");
    expect(body).toMatchObject({
      limit: "files_per_request",
      allowed: limits.anonymous.filesPerRequest,
      upgrade_url: expect.any(String),
      docs_url: expect.any(String),
    });
    expect(await state()).toEqual(before);
  });

  it("a file over the per-file limit: 413 payload_too_large with limit file_bytes", async () => {
    const before = await state();
    const size = limits.anonymous.fileBytes + 1;
    const res = await preflightPOST(
      apiRequest("/deploy/preflight", {
        method: "POST",
        body: JSON.stringify({ files: { "big.bin": { sha256: "a".repeat(64), size } } }),
        headers: json,
        ip: `203.0.113.${++ip}`,
      }),
      noParams,
    );
    const body = await refused(res, 413, "payload_too_large");
    expect(body).toMatchObject({ limit: "file_bytes", allowed: limits.anonymous.fileBytes });
    expect(await state()).toEqual(before);
  });

  it("a body over the plan's cap: 413 with limit body_bytes", async () => {
    const before = await state();
    const { apiKey } = await accountWithKey(t.ctx, "free");
    const cap = limits.free.bodyBytes;
    const res = await deployPOST(
      apiRequest("/deploy", {
        method: "POST",
        body: "x".repeat(cap + 1),
        headers: { "content-type": "text/html", ...bearer(apiKey) },
      }),
      noParams,
    );
    const body = await refused(res, 413, "payload_too_large");
    expect(body).toMatchObject({ limit: "body_bytes", allowed: cap });
    expect(await state()).toEqual(before);
  });

  it("a ttl below the minimum: 400 invalid_ttl with limit ttl_min_seconds", async () => {
    const before = await state();
    const res = await deployPOST(
      apiRequest("/deploy?ttl=30", {
        method: "POST",
        body: "<p>x</p>",
        headers: { "content-type": "text/html" },
        ip: `203.0.113.${++ip}`,
      }),
      noParams,
    );
    const body = await refused(res, 400, "invalid_ttl");
    expect(body).toMatchObject({ limit: "ttl_min_seconds", allowed: limits.anonymous.ttlMinSeconds });
    expect(await state()).toEqual(before);
  });

  it("a body that fails its schema: 400 invalid_request naming the field (ApiError.fromZod)", async () => {
    const before = await state();
    const { apiKey } = await accountWithKey(t.ctx, "free");
    const res = await claimPOST(
      apiRequest("/claim", {
        method: "POST",
        body: JSON.stringify({ slug: 1, claim_token: "ct_x" }),
        headers: { ...json, ...bearer(apiKey) },
      }),
      noParams,
    );
    const body = await refused(res, 400, "invalid_request");
    expect(body).toMatchObject({ field: "slug", error: expect.stringMatching(/^The body is invalid at "slug": /) });
    const files = await deployPOST(
      apiRequest("/deploy", {
        method: "POST",
        body: JSON.stringify({ files: { "a.html": 5 } }),
        headers: json,
        ip: `203.0.113.${++ip}`,
      }),
      noParams,
    );
    expect(await refused(files, 400, "invalid_request")).toMatchObject({ field: "files.a.html" });
    expect(await state()).toEqual(before);
  });

  it("errors without facts keep exactly the contract's fields", async () => {
    const res = await claimPOST(apiRequest("/claim", { method: "POST", body: "{}", headers: json }), noParams);
    const body = await refused(res, 401, "auth_required");
    expect(Object.keys(body).sort()).toEqual(["code", "docs_url", "error", "hint"]);
  });
});
