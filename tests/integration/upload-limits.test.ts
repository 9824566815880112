import { describe, expect, it } from "vitest";
import { POST as preflightPOST } from "@/app/deploy/preflight/route";
import { PUT as uploadPUT } from "@/app/deploy/uploads/[token]/[sha256]/route";
import { contents, uploadGrants } from "@/lib/db/schema";
import { sha256Hex } from "@/lib/ids";
import { limits } from "@/lib/plans";
import { enforceLimit } from "@/lib/ratelimit/guard";
import { ratePolicies } from "@/lib/ratelimit/policy";
import { preflightResponseSchema } from "@/lib/schemas";
import { clearOfMinuteEdge, suiteContext, apiRequest } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";

// Preflights and uploads are bounded (issue 23, "no rate limit on anonymous preflights and
// uploads"): anonymous preflights at the deploy rate per address, an account's per account,
// anonymous uploads per address, all rows of the one policy table; and the bytes one caller
// holds for no drop are bounded by the plan table (heldBytes).

const t = suiteContext({}, { freshLimiter: true });
const noParams = { params: Promise.resolve({}) };
const MB = 1024 * 1024;
/** Five of these are 99 MB: one preflight's worth, under a drop's 100 MB. */
const PART = Math.floor(19.8 * MB);
let n = 0;

/** A files map of distinct made-up contents (only hashes and sizes travel in a preflight). */
function declared(count: number, size: number): Record<string, { sha256: string; size: number }> {
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `f${i}.bin`,
      { sha256: sha256Hex(new TextEncoder().encode(`content ${++n}`)), size },
    ]),
  );
}

function preflight(
  files: Record<string, { sha256: string; size: number }>,
  opts: { ip?: string; headers?: Record<string, string> } = {},
) {
  return preflightPOST(
    apiRequest("/deploy/preflight", {
      method: "POST",
      body: JSON.stringify({ files }),
      headers: { "content-type": "application/json", ...opts.headers },
      ip: opts.ip,
    }),
    noParams,
  );
}

async function snapshot() {
  return {
    contents: (await t.ctx.db.select().from(contents))
      .map((c) => `${c.scope}/${c.sha256} ${c.size} ${c.holdUntil?.toISOString()} ${c.pins}`)
      .sort(),
    grants: (await t.ctx.db.select().from(uploadGrants)).length,
    stored: (await t.ctx.storage.list("")).sort(),
  };
}

async function refusedWithoutTrace(run: () => Promise<Response>, status: number, code: string) {
  const before = await snapshot();
  const res = await run();
  const body = (await res.json()) as { code: string; error: string };
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  expect(await snapshot()).toEqual(before);
  return { res, body };
}

describe("preflights and uploads go through the rate-limit table", () => {
  it("found: anonymous preflights from one address: the deploy rate (10 a minute), then 429 with Retry-After; other addresses and accounts are not counted with it", async () => {
    await clearOfMinuteEdge(t);
    const max = ratePolicies(t.ctx.env).preflight.max;
    expect(max).toBe(ratePolicies(t.ctx.env).deploy.max);
    for (let i = 0; i < max; i++) expect((await preflight(declared(1, 10), { ip: "198.51.100.10" })).status).toBe(200);
    const { res } = await refusedWithoutTrace(
      () => preflight(declared(1, 10), { ip: "198.51.100.10" }),
      429,
      "rate_limited",
    );
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await preflight(declared(1, 10), { ip: "198.51.100.11" })).status).toBe(200);
    const a = await accountWithKey(t.ctx, "free");
    expect((await preflight(declared(1, 10), { ip: "198.51.100.10", headers: bearer(a.apiKey) })).status).toBe(200);
  });

  it("an account's preflights are limited per account, whatever the address", async () => {
    await clearOfMinuteEdge(t);
    const a = await accountWithKey(t.ctx, "free");
    const max = ratePolicies(t.ctx.env).preflightAccount.max;
    for (let i = 0; i < max; i++) await enforceLimit(t.ctx, "preflightAccount", a.account.id);
    await refusedWithoutTrace(
      () => preflight(declared(1, 10), { ip: "198.51.100.20", headers: bearer(a.apiKey) }),
      429,
      "rate_limited",
    );
  });

  it("anonymous uploads are limited per address: past the budget a PUT answers 429 and stores nothing", async () => {
    await clearOfMinuteEdge(t);
    const bytes = new TextEncoder().encode("<p>upload</p>");
    const pre = preflightResponseSchema.parse(
      await (
        await preflight({ "index.html": { sha256: sha256Hex(bytes), size: bytes.byteLength } }, { ip: "198.51.100.30" })
      ).json(),
    );
    const target = new URL(pre.uploads[0]!.url).pathname;
    const put = () =>
      uploadPUT(apiRequest(target, { method: "PUT", body: bytes, ip: "198.51.100.30" }), {
        params: Promise.resolve({ token: pre.upload_token, sha256: sha256Hex(bytes) }),
      });
    // The budget spent by earlier uploads of this address (each a real hit on the limiter).
    const max = ratePolicies(t.ctx.env).upload.max;
    for (let i = 0; i < max; i++) await enforceLimit(t.ctx, "upload", "198.51.100.30");
    await refusedWithoutTrace(put, 429, "rate_limited");
  });
});

describe("held bytes per caller", () => {
  it("found: preflights that hold more than the plan's heldBytes for no drop answer 413 payload_too_large and hold nothing more (anonymous, per address)", async () => {
    expect([limits.anonymous.heldBytes, limits.free.heldBytes, limits.pro.heldBytes]).toEqual([
      200 * MB,
      200 * MB,
      800 * MB,
    ]);
    // Two preflights of 99 MB each are within 200 MB; the third would hold 297 MB.
    expect((await preflight(declared(5, PART), { ip: "198.51.100.40" })).status).toBe(200);
    expect((await preflight(declared(5, PART), { ip: "198.51.100.40" })).status).toBe(200);
    const { body } = await refusedWithoutTrace(
      () => preflight(declared(5, PART), { ip: "198.51.100.40" }),
      413,
      "payload_too_large",
    );
    expect(body.error).toContain("200 MB");
    // Another address holds nothing yet.
    expect((await preflight(declared(5, PART), { ip: "198.51.100.41" })).status).toBe(200);
  });

  it("an account's held bytes are counted across its preflights, whatever the address", async () => {
    const a = await accountWithKey(t.ctx, "free");
    expect((await preflight(declared(5, PART), { ip: "198.51.100.50", headers: bearer(a.apiKey) })).status).toBe(200);
    expect((await preflight(declared(5, PART), { ip: "198.51.100.51", headers: bearer(a.apiKey) })).status).toBe(200);
    await refusedWithoutTrace(
      () => preflight(declared(5, PART), { ip: "198.51.100.52", headers: bearer(a.apiKey) }),
      413,
      "payload_too_large",
    );
  });
});
