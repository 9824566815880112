import { randomBytes } from "node:crypto";
import { beforeEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import { POST as appendPOST } from "@/app/deploy/[slug]/route";
import { POST as portalPOST } from "@/app/billing/portal/route";
import { countDrops, countFiles } from "@/lib/db/queries";
import { limits } from "@/lib/plans";
import { ratePolicies } from "@/lib/ratelimit/policy";
import { RedisRateLimiter } from "@/lib/ratelimit/redis";
import { UpstashRateLimiter } from "@/lib/ratelimit/upstash";
import { freePort } from "../support/pg-server";
import { suiteContext, freshLimiter, apiRequest } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { manyFiles, zip } from "../support/zips";

// Behaviours of the contract that no other test held (issue 15's audit): the zip size cap per
// plan, the per-request file cap per plan, the rate limit and body cap of POST /deploy/{slug},
// POST /billing/portal without a credential, and the guards when the limiter's store is down. Each would pass silently if the check were
// removed or its number changed.

const noParams = { params: Promise.resolve({}) };
const slugParams = (slug: string) => ({ params: Promise.resolve({ slug }) });
let ip = 0;

const t = suiteContext({ STRIPE_SECRET_KEY: "sk_test_gaps", STRIPE_WEBHOOK_SECRET: "whsec_gaps" });
beforeEach(async () => {
  await freshLimiter(t);
  ip++;
});

function deploy(body: BodyInit, contentType: string, headers: Record<string, string> = {}) {
  return deployPOST(
    apiRequest("/deploy", {
      method: "POST",
      body,
      headers: { "content-type": contentType, ...headers },
      ip: `198.18.1.${ip % 250}`,
    }),
    noParams,
  );
}
function append(slug: string, body: BodyInit, contentType: string, apiKey: string) {
  return appendPOST(
    apiRequest(`/deploy/${slug}`, {
      method: "POST",
      body,
      headers: { "content-type": contentType, ...bearer(apiKey) },
      ip: `198.18.2.${ip % 250}`,
    }),
    slugParams(slug),
  );
}
async function code(res: Response): Promise<{ status: number; code?: string }> {
  const body = (await res.json()) as { code?: string };
  return { status: res.status, code: body.code };
}
async function unchanged(run: () => Promise<void>) {
  const before = [await countDrops(t.ctx.db), await countFiles(t.ctx.db), (await t.ctx.storage.list("")).length];
  await run();
  expect([await countDrops(t.ctx.db), await countFiles(t.ctx.db), (await t.ctx.storage.list("")).length]).toEqual(
    before,
  );
}

describe("zip size cap per plan", () => {
  it(`anonymous and free: an archive over ${limits.free.zipBytes} bytes is 413 before it is read; paid plans read it`, async () => {
    expect(limits.free.zipBytes).toBe(limits.anonymous.zipBytes);
    expect(limits.pro.zipBytes).toBeGreaterThan(limits.free.zipBytes);
    const over = randomBytes(limits.free.zipBytes + 1);
    const free = await accountWithKey(t.ctx, "free");
    const pro = await accountWithKey(t.ctx, "pro");
    await unchanged(async () => {
      expect(await code(await deploy(over, "application/zip"))).toEqual({ status: 413, code: "payload_too_large" });
      expect(await code(await deploy(over, "application/zip", bearer(free.apiKey)))).toEqual({
        status: 413,
        code: "payload_too_large",
      });
      // Within the paid cap the same bytes are read, and refused for what they are: not a zip.
      expect(await code(await deploy(over, "application/zip", bearer(pro.apiKey)))).toEqual({
        status: 400,
        code: "invalid_zip",
      });
    });
  });
});

describe("per-request file cap per plan", () => {
  it(`free: ${limits.free.filesPerRequest + 1} files in a zip or a files map are 400 file_cap_exceeded; paid deploys them`, async () => {
    const n = limits.free.filesPerRequest + 1;
    expect(limits.pro.filesPerRequest).toBeGreaterThanOrEqual(n);
    const free = await accountWithKey(t.ctx, "free");
    const pro = await accountWithKey(t.ctx, "pro");
    await unchanged(async () => {
      expect(await code(await deploy(zip(manyFiles(n)) as BodyInit, "application/zip", bearer(free.apiKey)))).toEqual({
        status: 400,
        code: "file_cap_exceeded",
      });
      expect(await code(await deploy(JSON.stringify({ files: manyFiles(n) }), "application/json"))).toEqual({
        status: 400,
        code: "file_cap_exceeded",
      });
    });
    const ok = await deploy(zip(manyFiles(n)) as BodyInit, "application/zip", bearer(pro.apiKey));
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { files: string[] }).files).toHaveLength(n);
  });

  it(`paid: ${limits.pro.filesPerRequest + 1} files in one request are 400 file_cap_exceeded with a hint to append`, async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    await unchanged(async () => {
      const res = await deploy(
        JSON.stringify({ files: manyFiles(limits.pro.filesPerRequest + 1) }),
        "application/json",
        bearer(pro.apiKey),
      );
      const body = (await res.json()) as { code: string; hint?: string };
      expect({ status: res.status, code: body.code }).toEqual({ status: 400, code: "file_cap_exceeded" });
      expect(body.hint).toContain("/deploy/{slug}");
    });
  });
});

describe("POST /deploy/{slug}", () => {
  it("answers 413 for a body over the plan's cap, and adds nothing", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const d = await deploy("<p>base</p>", "text/html", bearer(pro.apiKey));
    const { slug } = (await d.json()) as { slug: string };
    await unchanged(async () => {
      expect(await code(await append(slug, "x".repeat(limits.pro.bodyBytes + 1), "text/html", pro.apiKey))).toEqual({
        status: 413,
        code: "payload_too_large",
      });
    });
  });

  it("counts against the per-credential budget: 429 with Retry-After past it", async () => {
    const pro = await accountWithKey(t.ctx, "pro");
    const d = await deploy("<p>base</p>", "text/html", bearer(pro.apiKey));
    const { slug } = (await d.json()) as { slug: string };
    const budget = ratePolicies(t.ctx.env).accountRoute.max;
    for (let i = 0; i < budget; i++) {
      // Each append is refused for its content (a path that exists), after the guard counted it.
      expect(
        (await append(slug, JSON.stringify({ files: { "index.html": "again" } }), "application/json", pro.apiKey))
          .status,
      ).toBe(400);
    }
    const res = await append(slug, JSON.stringify({ files: { "new.html": "x" } }), "application/json", pro.apiKey);
    expect(await code(res)).toEqual({ status: 429, code: "rate_limited" });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("POST /billing/portal", () => {
  it("without a credential, or with a malformed one, is 401", async () => {
    expect(await code(await portalPOST(apiRequest("/billing/portal", { method: "POST" }), noParams))).toEqual({
      status: 401,
      code: "auth_required",
    });
    expect(
      await code(
        await portalPOST(
          apiRequest("/billing/portal", { method: "POST", headers: { authorization: "Bearer nope" } }),
          noParams,
        ),
      ),
    ).toEqual({ status: 401, code: "auth_required" });
  });
});

describe("rate limiter store down", () => {
  it.each([
    // The real Upstash client, and the real redis client, against a port nothing listens on.
    {
      store: "Upstash",
      make: (port: number) => new UpstashRateLimiter(`http://127.0.0.1:${port}`, "token", { timeoutMs: 500 }),
    },
    { store: "Redis", make: (port: number) => new RedisRateLimiter(`redis://127.0.0.1:${port}`, { timeoutMs: 500 }) },
  ])(
    "$store: deploys and account routes go through (the guard fails open) and the outage is logged on one line",
    async ({ make }) => {
      const limiter = make(await freePort());
      t.ctx.limiter = limiter;
      onTestFinished(() => (limiter instanceof RedisRateLimiter ? limiter.close() : undefined));
      const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
      try {
        expect((await deploy("<p>limiter down</p>", "text/html")).status).toBe(200);
        const lines = spy.mock.calls.map((c) => c.map(String).join(" ")).filter((l) => l.startsWith("[ratelimit]"));
        expect(lines.length).toBeGreaterThan(0);
        for (const l of lines) expect(l).not.toContain("\n");
      } finally {
        spy.mockRestore();
      }
    },
  );
});
