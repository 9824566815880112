import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "node:net";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { startApp, type RunningApp } from "../support/app-server";
import { startOidcProvider, type OidcHarness } from "../support/oidc";

// The self-hosted listener (server.mjs) over real HTTP: it refuses a production misconfiguration
// at start, turns two Authorization headers into one refused credential, and writes one JSON
// line per request that never carries a secret.

let app: RunningApp;
let oidc: OidcHarness;
let appHost: string;
let apiKey: string;
let idToken: string;

beforeAll(async () => {
  oidc = await startOidcProvider();
  app = await startApp({ OIDC_ISSUER: oidc.issuer, OIDC_CLIENT_ID: oidc.clientId });
  appHost = `localhost:${app.port}`;
  idToken = await oidc.mintIdToken({ sub: "log-user", email: "log@example.test" });
  const minted = await app.request(appHost, "/keys", { method: "POST", headers: { authorization: `Bearer ${idToken}` } });
  expect(minted.status).toBe(201);
  apiKey = (minted.json() as { apiKey: string }).apiKey;
  expect(apiKey).toMatch(/^sp_/);
}, 120_000);
afterAll(async () => {
  await app?.stop();
  await oidc?.close();
});

/** Sends a raw request (repeated headers included) and resolves the status of the answer. */
function rawStatus(lines: string[], body = ""): Promise<number> {
  return new Promise((resolve, reject) => {
    const sock = connect(app.port, "127.0.0.1");
    let out = "";
    sock.on("data", (d) => (out += d.toString()));
    sock.on("close", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1] ?? 0)));
    sock.on("error", reject);
    sock.write([...lines, "Connection: close", "", body].join("\r\n"));
  });
}

interface LogLine {
  msg: string;
  method: string;
  host: string;
  path: string;
  status: number;
  ms: number;
  id: string;
}

function logLines(): LogLine[] {
  return app
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as LogLine)
    .filter((l) => l.msg === "request");
}

/** The line of one request: written when its response is done, so it may trail the answer a little. */
async function lineOf(id: unknown): Promise<LogLine | undefined> {
  for (let i = 0; i < 100; i++) {
    const line = logLines().find((l) => l.id === id);
    if (line) return line;
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}

describe("start-up configuration", () => {
  it("production refuses to start when SERVE_DOMAIN shares the app's registrable domain, naming the variable", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-misconf-"));
    try {
      await expect(startApp({ BASE_URL: "https://app.example.com", SERVE_DOMAIN: "drops.example.com" }, { dataDir })).rejects.toThrow(
        /app exited early[\s\S]*SERVE_DOMAIN: drops \(\*\.drops\.example\.com\) and the app \(app\.example\.com\) share the registrable domain example\.com/,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("two Authorization headers", () => {
  it("one valid key sent twice is one bad request: 401 on every route that reads credentials", async () => {
    const one = await app.request(appHost, "/drops", { headers: { authorization: `Bearer ${apiKey}` } });
    expect(one.status).toBe(200);
    const twice = (method: string, target: string, extra: string[] = [], body = "") =>
      rawStatus([`${method} ${target} HTTP/1.1`, `Host: ${appHost}`, `Authorization: Bearer ${apiKey}`, `Authorization: Bearer ${apiKey}`, ...extra], body);
    expect(await twice("GET", "/drops")).toBe(401);
    expect(await twice("GET", "/keys")).toBe(401);
    // POST /deploy used to act as the last key (200 either way before this).
    const body = JSON.stringify({ files: { "index.html": "x" } });
    expect(await twice("POST", "/deploy", ["Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`], body)).toBe(401);
    // Nothing was deployed by the refused request.
    const list = await app.request(appHost, "/drops", { headers: { authorization: `Bearer ${apiKey}` } });
    expect((list.json() as { total: number }).total).toBe(0);
  });
});

describe("one structured log line per request", () => {
  it("logs method, host kind, path, status, duration and request id, and never a key, token, claim token, cookie or query", async () => {
    const cookieSecret = randomBytes(24).toString("hex");
    const querySecret = randomBytes(24).toString("hex");
    // An anonymous deploy hands out a claim token; claiming sends it back in the body.
    const anon = await app.request(appHost, `/deploy?note=${querySecret}`, { method: "POST", body: "<h1>log</h1>", headers: { "content-type": "text/html", cookie: `theme=${cookieSecret}` } });
    expect(anon.status).toBe(200);
    const { slug, claim_token: claimToken } = anon.json() as { slug: string; claim_token: string };
    expect(claimToken).toBeTruthy();
    const claimed = await app.request(appHost, "/claim", {
      method: "POST",
      body: JSON.stringify({ slug, claim_token: claimToken }),
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}`, cookie: `__Host-next-auth.session-token=${cookieSecret}` },
    });
    expect(claimed.status).toBe(200);
    const requestId = claimed.headers["x-request-id"];
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    // Refused and failing credentials, a claim token in a query string, a drop visit with secrets.
    expect((await app.request(appHost, `/drops?claim_token=${claimToken}`, { headers: { authorization: `Bearer ${apiKey}x`, cookie: `next-auth.session-token=${cookieSecret}` } })).status).toBe(401);
    expect((await app.request(appHost, "/keys", { headers: { authorization: `Bearer ${idToken}` } })).status).toBe(200);
    expect((await app.request(appHost, `/dashboard?k=${querySecret}`, { headers: { cookie: `next-auth.session-token=${cookieSecret}` } })).status).toBeLessThan(500);
    const drop = await app.request(`${slug}.${app.serveDomain}`, `/?token=${claimToken}`, { headers: { authorization: `Bearer ${apiKey}`, cookie: `s=${cookieSecret}` } });
    expect(drop.status).toBe(200);
    expect(drop.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);

    const dropLine = await lineOf(drop.headers["x-request-id"]);
    expect(dropLine).toMatchObject({ method: "GET", host: "drop", path: "/", status: 200 });
    const lines = logLines();
    const claimLine = lines.find((l) => l.id === requestId);
    expect(claimLine).toMatchObject({ method: "POST", host: "app", path: "/claim", status: 200 });
    expect(typeof claimLine?.ms).toBe("number");
    expect(lines).toContainEqual(expect.objectContaining({ method: "POST", host: "app", path: "/deploy", status: 200 }));
    expect(lines).toContainEqual(expect.objectContaining({ method: "GET", host: "app", path: "/drops", status: 401 }));
    // Every line names a unique request.
    expect(new Set(lines.map((l) => l.id)).size).toBe(lines.length);

    const output = app.output();
    for (const secret of [apiKey, idToken, claimToken, cookieSecret, querySecret]) expect(output).not.toContain(secret);
  });

  it("logs an upload target's path without its upload token", async () => {
    const bytes = Buffer.from("<p>uploaded</p>");
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const pre = await app.request(appHost, "/deploy/preflight", {
      method: "POST",
      body: JSON.stringify({ files: { "index.html": { sha256, size: bytes.byteLength } } }),
      headers: { "content-type": "application/json" },
    });
    expect(pre.status).toBe(200);
    const { upload_token: token, uploads } = pre.json() as { upload_token: string; uploads: Array<{ url: string }> };
    const target = new URL(uploads[0]!.url);
    expect(target.pathname).toContain(token);
    const put = await app.request(appHost, target.pathname, { method: "PUT", body: bytes, headers: { "content-type": "application/octet-stream" } });
    expect(put.status).toBeLessThan(300);
    const line = await lineOf(put.headers["x-request-id"]);
    expect(line).toMatchObject({ method: "PUT", path: `/deploy/uploads/(token)/${sha256}`, status: put.status });
    expect(app.output()).not.toContain(token);
  });
});
