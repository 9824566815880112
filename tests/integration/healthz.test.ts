import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
    for (const secret of ["cron-secret-healthz", "nextauth-secret-healthz", t.dataDir, "postgres://"]) expect(text).not.toContain(secret);
    expect((await healthPOST(apiRequest("/healthz", { method: "POST" }), noParams)).status).toBe(405);
  });

  it("answers 503 with Retry-After and names the part when the database is gone", async () => {
    await t.ctx.dbHandle.close();
    const res = await healthGET(apiRequest("/healthz"), noParams);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect(await res.json()).toMatchObject({ status: "degraded", database: "unavailable", storage: "ok" });
  });
});
