import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as dropsGET } from "@/app/drops/route";
import { accountWithKey, bearer } from "../support/accounts";
import { GET as healthGET, POST as healthPOST } from "@/app/healthz/route";
import pkg from "@/package.json";
import { apiRequest, makeTestContext, type TestContext } from "../support/context";

// GET /healthz: database and storage reachable, the version; never configuration or secrets.

let t: TestContext;
const noParams = { params: Promise.resolve({}) };

beforeAll(async () => {
  t = await makeTestContext({ CRON_SECRET: "cron-secret-healthz", NEXTAUTH_SECRET: "nextauth-secret-healthz" });
});
afterAll(async () => {
  await t.close().catch(() => undefined);
});

describe("GET /healthz", () => {
  it("answers 200 with the parts' status and the version, and nothing secret", async () => {
    const res = await healthGET(apiRequest("/healthz"), noParams);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ status: "ok", version: pkg.version, database: "ok", storage: "ok" });
    for (const secret of ["cron-secret-healthz", "nextauth-secret-healthz", t.dataDir, "postgres://"])
      expect(text).not.toContain(secret);
    expect((await healthPOST(apiRequest("/healthz", { method: "POST" }), noParams)).status).toBe(405);
  });

  it("answers 503 with Retry-After and names the part when the database is gone; a 503's cause is logged on one line", async () => {
    const { apiKey } = await accountWithKey(t.ctx);
    await t.ctx.dbHandle.close();
    const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const down = await dropsGET(apiRequest("/drops", { headers: bearer(apiKey) }), noParams);
      expect(down.status).toBe(503);
      expect(down.headers.get("retry-after")).toBeTruthy();
      const lines = spy.mock.calls.map((c) => c.map(String).join(" "));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^\[upstream_unavailable\] The database is unavailable right now\. cause: .*PGlite is closed/,
      );
      expect(lines[0]).not.toContain("\n");
      expect(lines[0]).not.toContain(apiKey);
    } finally {
      spy.mockRestore();
    }
    const res = await healthGET(apiRequest("/healthz"), noParams);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(await res.json()).toMatchObject({ status: "degraded", database: "unavailable", storage: "ok" });
  });
});
