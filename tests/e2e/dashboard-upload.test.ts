import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app-server";

// The dashboard's drop zone (POST /dashboard/upload) shares the abuse guard of every deploy path
// (guardedDeploy): requests it refuses spend the address's refused-request budget, which, once
// spent, refuses deploys from that address everywhere.

let app: RunningApp;
let appHost: string;

beforeAll(async () => {
  // One deploy per minute, so six refused requests per minute (INVALID_DEPLOY_FACTOR).
  app = await startApp({ RATE_LIMIT_DEPLOYS_PER_MINUTE: "1" });
  appHost = `localhost:${app.port}`;
}, 120_000);
afterAll(async () => {
  await app?.stop();
});

describe("dashboard preflight", () => {
  it("is cookie-authenticated: another site's request is refused, and a same-origin request without a session answers 401", async () => {
    const body = JSON.stringify({ files: { "index.html": { sha256: "a".repeat(64), size: 1 } } });
    const cross = await app.request(appHost, "/dashboard/preflight", {
      method: "POST",
      body,
      headers: { "content-type": "application/json", origin: "https://evil.example" },
    });
    expect([cross.status, (cross.json() as { code: string }).code]).toEqual([403, "forbidden"]);
    const anonymous = await app.request(appHost, "/dashboard/preflight", {
      method: "POST",
      body,
      headers: { "content-type": "application/json", origin: app.baseUrl },
    });
    expect([anonymous.status, (anonymous.json() as { code: string }).code]).toEqual([401, "auth_required"]);
  });
});

describe("dashboard upload and the shared deploy guard", () => {
  it("refused cross-origin uploads count against the address's refused-request budget, shared with POST /deploy", async () => {
    const upload = () =>
      app.request(appHost, "/dashboard/upload", {
        method: "POST",
        body: "<h1>x</h1>",
        headers: { "content-type": "text/html", origin: "https://evil.example" },
      });
    for (let i = 0; i < 6; i++) {
      const refused = await upload();
      expect(refused.status).toBe(403);
      expect((refused.json() as { code: string }).code).toBe("forbidden");
    }
    const limited = await upload();
    expect(limited.status).toBe(429);
    expect((limited.json() as { code: string }).code).toBe("rate_limited");
    // The same address can no longer deploy over REST either, and nothing was stored.
    const deploy = await app.request(appHost, "/deploy", {
      method: "POST",
      body: "<h1>ok</h1>",
      headers: { "content-type": "text/html" },
    });
    expect(deploy.status).toBe(429);
  });
});
