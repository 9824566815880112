import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect } from "node:net";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { request as httpRequest } from "node:http";
import { startApp, type HttpResult, type RunningApp } from "../support/app-server";
import { startOidcProvider, type OidcHarness } from "../support/oidc";
import { zip, zipWithSymlink } from "../support/zips";
import { accountWithKey } from "../support/accounts";
import { createContext } from "@/lib/context";
import { parseEnv } from "@/lib/env";

// The self-hosted listener (server.mjs) over real HTTP: it refuses a production misconfiguration
// at start, refuses two credentials on both of its paths (the data plane and Next), and writes one JSON
// line per request that never carries a secret. It hands the deploy-body routes to the data
// plane, which answers them as Next did.

let app: RunningApp;
let oidc: OidcHarness;
let appHost: string;
let apiKey: string;
let idToken: string;

let dataDir: string;
let proKey: string;

beforeAll(async () => {
  oidc = await startOidcProvider();
  // A subscriber's key, made in the app's store before it starts (appends are for subscribers).
  dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-log-"));
  const setup = await createContext(parseEnv({ DATA_DIR: dataDir, NODE_ENV: "test" }));
  proKey = (await accountWithKey(setup, "pro")).apiKey;
  await setup.dbHandle.close();
  app = await startApp({ OIDC_ISSUER: oidc.issuer, OIDC_CLIENT_ID: oidc.clientId }, { dataDir });
  appHost = `localhost:${app.port}`;
  idToken = await oidc.mintIdToken({ sub: "log-user", email: "log@example.test" });
  const minted = await app.request(appHost, "/keys", {
    method: "POST",
    headers: { authorization: `Bearer ${idToken}` },
  });
  expect(minted.status).toBe(201);
  apiKey = (minted.json() as { apiKey: string }).apiKey;
  expect(apiKey).toMatch(/^sp_/);
}, 120_000);
afterAll(async () => {
  await app?.stop();
  await oidc?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

interface LogLine {
  time: string;
  level: string;
  msg: string;
  request_id: string;
  method: string;
  host_kind: "app" | "drop" | "domain";
  path: string;
  status: number;
  duration_ms: number;
  bytes: number;
  error_code?: string;
  plane: "data" | "next";
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
    const line = logLines().find((l) => l.request_id === id);
    if (line) return line;
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
}

describe("start-up", () => {
  it("opens the database when the server starts, before any request needs it", async () => {
    const lines = () =>
      app
        .output()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { msg: string; db?: string; ms?: number; path?: string; method?: string });
    // The first request that needed it (POST /keys, in beforeAll): its line may trail its answer.
    const isKeys = (l: { msg: string; method?: string; path?: string }) =>
      l.msg === "request" && l.method === "POST" && l.path === "/keys";
    for (let i = 0; i < 100 && !lines().some(isKeys); i++) await new Promise((r) => setTimeout(r, 50));
    const all = lines();
    const opened = all.findIndex((l) => l.msg === "context");
    expect(all[opened]).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      level: "info",
      msg: "context",
      db: "pglite",
      ms: expect.any(Number),
    });
    expect(all.findIndex(isKeys)).toBeGreaterThan(opened);
  });
});

describe("start-up configuration", () => {
  it("production refuses to start when SERVE_DOMAIN shares the app's registrable domain, naming the variable", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-misconf-"));
    try {
      await expect(
        startApp({ BASE_URL: "https://app.example.com", SERVE_DOMAIN: "drops.example.com" }, { dataDir }),
      ).rejects.toThrow(
        /app exited early[\s\S]*SERVE_DOMAIN: drops \(\*\.drops\.example\.com\) and the app \(app\.example\.com\) share the registrable domain example\.com/,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("two credentials are one bad request, on the data plane and behind Next alike", () => {
  it("the same duplicate-header cases answer 401 auth_required on both paths and change nothing", async () => {
    expect((await app.request(appHost, "/drops", { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(200);
    // A subscriber's drop to append to (the append route runs on both paths: plain slug → data plane, escaped → Next).
    const auth = { "content-type": "application/json", authorization: `Bearer ${proKey}` };
    const made = await app.request(appHost, "/deploy", {
      method: "POST",
      body: JSON.stringify({ files: { "index.html": "<h1>kept</h1>" } }),
      headers: auth,
    });
    expect(made.status).toBe(200);
    const { slug } = made.json() as { slug: string };
    const state = async () => ({
      drops: (
        (await app.request(appHost, "/drops", { headers: { authorization: `Bearer ${proKey}` } })).json() as {
          total: number;
        }
      ).total,
      anonDrops: (
        (await app.request(appHost, "/drops", { headers: { authorization: `Bearer ${apiKey}` } })).json() as {
          total: number;
        }
      ).total,
      file: (await app.request(`${slug}.${app.serveDomain}`, "/x.html")).status,
    });
    const before = await state();
    expect(before.file).toBe(404);

    const cases: [string, string[]][] = [
      ["one key sent twice", [`Authorization: Bearer ${proKey}`, `Authorization: Bearer ${proKey}`]],
      ["a valid key, then another account's", [`Authorization: Bearer ${proKey}`, `Authorization: Bearer ${apiKey}`]],
      ["a bad key, then a valid one", ["Authorization: Bearer sp_not-a-key", `Authorization: Bearer ${proKey}`]],
      ["a valid key, then a bad one", [`Authorization: Bearer ${proKey}`, "Authorization: Bearer sp_not-a-key"]],
      ["two credentials in one header", [`Authorization: Bearer ${proKey}, Bearer ${proKey}`]],
      ["a key and an ID token", [`Authorization: Bearer ${proKey}`, `authorization: Bearer ${idToken}`]],
    ];
    const body = JSON.stringify({ files: { "x.html": "<p>x</p>" } });
    const withBody = ["Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`];
    const targets: [plane: "data" | "next", method: string, target: string, extra: string[], body: string][] = [
      ["data", "POST", "/deploy", withBody, body],
      ["data", "POST", `/deploy/${slug}`, withBody, body],
      ["next", "POST", `/deploy/${escaped(slug)}`, withBody, body],
      [
        "next",
        "POST",
        "/deploy/preflight",
        withBody,
        JSON.stringify({ files: { "x.html": { sha256: "a".repeat(64), size: 1 } } }),
      ],
      ["next", "GET", "/drops", [], ""],
    ];
    for (const [name, credentials] of cases) {
      for (const [plane, method, target, extra, sent] of targets) {
        const res = await rawAnswer(
          [
            `${method} ${target} HTTP/1.1`,
            `Host: ${appHost}`,
            ...credentials,
            ...extra.map((h) => (h.startsWith("Content-Length") ? `Content-Length: ${Buffer.byteLength(sent)}` : h)),
          ],
          sent,
        );
        expect({ name, target, status: res.status, code: res.code }).toEqual({
          name,
          target,
          status: 401,
          code: "auth_required",
        });
        expect({ name, target, plane: (await lineOf(res.id))?.plane }).toEqual({ name, target, plane });
      }
    }
    expect(await state()).toEqual(before);
  });
});

describe("one structured log line per request", () => {
  it("logs method, host kind, path, status, duration and request id, and never a key, token, claim token, cookie or query", async () => {
    const cookieSecret = randomBytes(24).toString("hex");
    const querySecret = randomBytes(24).toString("hex");
    // An anonymous deploy hands out a claim token; claiming sends it back in the body.
    const anon = await app.request(appHost, `/deploy?note=${querySecret}`, {
      method: "POST",
      body: "<h1>log</h1>",
      headers: { "content-type": "text/html", cookie: `theme=${cookieSecret}` },
    });
    expect(anon.status).toBe(200);
    const { slug, claim_token: claimToken } = anon.json() as { slug: string; claim_token: string };
    expect(claimToken).toBeTruthy();
    const claimed = await app.request(appHost, "/claim", {
      method: "POST",
      body: JSON.stringify({ slug, claim_token: claimToken }),
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${apiKey}`,
        cookie: `__Host-next-auth.session-token=${cookieSecret}`,
      },
    });
    expect(claimed.status).toBe(200);
    const requestId = claimed.headers["x-request-id"];
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    // Refused and failing credentials, a claim token in a query string, a drop visit with secrets.
    expect(
      (
        await app.request(appHost, `/drops?claim_token=${claimToken}`, {
          headers: { authorization: `Bearer ${apiKey}x`, cookie: `next-auth.session-token=${cookieSecret}` },
        })
      ).status,
    ).toBe(401);
    expect((await app.request(appHost, "/keys", { headers: { authorization: `Bearer ${idToken}` } })).status).toBe(200);
    expect(
      (
        await app.request(appHost, `/dashboard?k=${querySecret}`, {
          headers: { cookie: `next-auth.session-token=${cookieSecret}` },
        })
      ).status,
    ).toBeLessThan(500);
    const drop = await app.request(`${slug}.${app.serveDomain}`, `/?token=${claimToken}`, {
      headers: { authorization: `Bearer ${apiKey}`, cookie: `s=${cookieSecret}` },
    });
    expect(drop.status).toBe(200);
    expect(drop.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);

    const dropLine = await lineOf(drop.headers["x-request-id"]);
    expect(dropLine).toMatchObject({
      level: "info",
      method: "GET",
      host_kind: "drop",
      path: "/",
      status: 200,
      bytes: drop.body.byteLength,
    });
    expect(dropLine).not.toHaveProperty("error_code");
    const lines = logLines();
    const claimLine = lines.find((l) => l.request_id === requestId);
    expect(claimLine).toMatchObject({ method: "POST", host_kind: "app", path: "/claim", status: 200 });
    expect(typeof claimLine?.duration_ms).toBe("number");
    expect(lines).toContainEqual(
      expect.objectContaining({ method: "POST", host_kind: "app", path: "/deploy", status: 200 }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        method: "GET",
        host_kind: "app",
        path: "/drops",
        status: 401,
        error_code: "auth_required",
      }),
    );
    // Every line names a unique request.
    expect(new Set(lines.map((l) => l.request_id)).size).toBe(lines.length);

    const output = app.output();
    for (const secret of [apiKey, idToken, claimToken, cookieSecret, querySecret]) expect(output).not.toContain(secret);
  });

  it("every line the server writes is a JSON object with time, level and msg", async () => {
    const lines = app
      .output()
      .split("\n")
      .filter((l) => l !== "");
    expect(lines.length).toBeGreaterThan(5);
    for (const l of lines) {
      const parsed = JSON.parse(l) as Record<string, unknown>;
      expect(parsed).toMatchObject({ time: expect.any(String), level: expect.any(String), msg: expect.any(String) });
      expect(["debug", "info", "warn", "error"]).toContain(parsed.level);
    }
  });

  it("an error envelope from Next carries the request_id of the response header and of its log line", async () => {
    const res = await app.request(appHost, "/drops", { headers: { authorization: "Bearer sp_not_a_key" } });
    expect(res.status).toBe(401);
    const id = res.headers["x-request-id"];
    expect(res.json()).toMatchObject({ code: "auth_required", request_id: id });
    expect(await lineOf(id)).toMatchObject({ status: 401, error_code: "auth_required", plane: "next" });
    const sent = await app.request(appHost, "/no-such-route", { headers: { "x-request-id": "from-the-client" } });
    expect(sent.headers["x-request-id"]).not.toBe("from-the-client");
    const line = await lineOf(sent.headers["x-request-id"]);
    expect(line).toMatchObject({ status: 404, error_code: "not_found" });
    // Without TRUST_PROXY a client's own id is not even logged beside ours.
    expect(line).not.toHaveProperty("upstream_request_id");
  });

  it("without METRICS_PORT or METRICS_TOKEN there is no metrics route: GET /metrics is 404", async () => {
    const res = await app.request(appHost, "/metrics", { headers: { authorization: "Bearer anything-at-all-here" } });
    expect(res.status).toBe(404);
    expect(res.text).not.toContain("dropsite_http_requests_total");
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
    const put = await app.request(appHost, target.pathname, {
      method: "PUT",
      body: bytes,
      headers: { "content-type": "application/octet-stream" },
    });
    expect(put.status).toBeLessThan(300);
    const line = await lineOf(put.headers["x-request-id"]);
    expect(line).toMatchObject({
      method: "PUT",
      path: `/deploy/uploads/(token)/${sha256}`,
      status: put.status,
      plane: "data",
    });
    expect(app.output()).not.toContain(token);
  });

  it("masks every secret token in a path by one rule: one-time deploy grants and their preflight, escaped tokens, keys and claim tokens", async () => {
    // A one-time deploy URL, from the MCP deploy_directory tool over HTTP.
    const envelope = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const issued = await app.request(appHost, "/mcp", {
      method: "POST",
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "deploy_directory", arguments: {}, _meta: envelope },
      }),
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "deploy_directory",
        authorization: `Bearer ${apiKey}`,
      },
    });
    expect(issued.status).toBe(200);
    const grant = (issued.json() as { result: { structuredContent: { url: string; preflight_url: string } } }).result
      .structuredContent;
    const grantToken = new URL(grant.url).pathname.split("/").at(-1)!;
    expect(grantToken).toMatch(/^dg_[A-Za-z0-9_-]{43}$/);
    expect(new URL(grant.preflight_url).pathname).toBe(`/deploy/once/${grantToken}/preflight`);

    const bytes = Buffer.from("<p>granted</p>");
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const pre = await app.request(appHost, `/deploy/once/${grantToken}/preflight`, {
      method: "POST",
      body: JSON.stringify({ files: { "index.html": { sha256, size: bytes.byteLength } } }),
      headers: { "content-type": "application/json" },
    });
    expect(pre.status).toBe(200);
    const uploadToken = (pre.json() as { upload_token?: string }).upload_token;
    const deployed = await app.request(appHost, `/deploy/once/${grantToken}`, {
      method: "POST",
      body: "<p>granted</p>",
      headers: { "content-type": "text/html" },
    });
    expect(deployed.status).toBe(200);
    // Used up: the refusal of a second use, and of a percent-escaped copy (which Next decodes), are logged masked too.
    const again = await app.request(appHost, `/deploy/once/${grantToken}`, {
      method: "POST",
      body: "<p>again</p>",
      headers: { "content-type": "text/html" },
    });
    expect(again.status).toBe(410);
    const escapedAgain = await app.request(appHost, `/deploy/once/${escaped(grantToken)}`, {
      method: "POST",
      body: "<p>again</p>",
      headers: { "content-type": "text/html" },
    });
    expect(escapedAgain.status).toBe(410);
    // Secrets a client put in a path by mistake: a key, a claim token, a truncated grant.
    const { claim_token: claimToken } = deployed.json() as { claim_token?: string };
    const strays = [
      `/drops/${apiKey}`,
      `/drops/${claimToken ?? `ct_${"C".repeat(43)}`}`,
      `/deploy/once/${grantToken.slice(0, 20)}`,
    ];
    const strayAnswers = await Promise.all(strays.map((p) => app.request(appHost, p)));

    const lines = await Promise.all(
      [pre, deployed, again, escapedAgain, ...strayAnswers].map((r) => lineOf(r.headers["x-request-id"])),
    );
    expect(lines.map((l) => l?.path)).toEqual([
      "/deploy/once/(token)/preflight",
      "/deploy/once/(token)",
      "/deploy/once/(token)",
      "/deploy/once/(token)",
      "/drops/(token)",
      "/drops/(token)",
      "/deploy/once/(token)",
    ]);
    // Every kind of secret this suite used, grepped in the whole captured log.
    const output = app.output();
    const secrets = {
      apiKey,
      proKey,
      idToken,
      grantToken,
      grantPrefix: grantToken.slice(0, 20),
      uploadToken,
      claimToken,
    };
    for (const [kind, secret] of Object.entries(secrets)) {
      if (secret) expect({ kind, leaked: output.includes(secret) }).toEqual({ kind, leaked: false });
    }
    expect(output).not.toMatch(/(?<![A-Za-z0-9_-])(sp|ct|ut|dg)_[A-Za-z0-9_-]{8}/);
  });
  it("a response the client leaves before its end is logged once, as aborted; a whole one once, not aborted", async () => {
    // 20 MB of random bytes: more than loopback's socket buffers hold, so the answer cannot end
    // while the client reads nothing.
    const big = randomBytes(20 * 1024 * 1024);
    const deployed = await app.request(appHost, "/deploy", {
      method: "POST",
      body: zip({ "big.bin": big, "index.html": "<p>small</p>" }),
      headers: { "content-type": "application/zip", authorization: `Bearer ${proKey}` },
    });
    expect(deployed.status).toBe(200);
    const { slug } = deployed.json() as { slug: string };
    const host = `${slug}.localhost:${app.port}`;
    const whole = await app.request(host, "/index.html");
    expect(whole.status).toBe(200);
    const id = await new Promise<string>((resolve, reject) => {
      const socket = connect(app.port, "127.0.0.1", () =>
        socket.write(`GET /big.bin HTTP/1.1\r\nHost: ${host}\r\n\r\n`),
      );
      let head = "";
      socket.on("data", (chunk: Buffer) => {
        head += chunk.toString("latin1");
        const end = head.indexOf("\r\n\r\n");
        if (end < 0) return;
        const found = /^x-request-id: (\S+)$/im.exec(head.slice(0, end));
        socket.destroy();
        if (found) resolve(found[1]!);
        else reject(new Error(`no X-Request-Id in ${head.slice(0, end)}`));
      });
      socket.on("error", reject);
    });
    const left = await lineOf(id);
    expect(left).toMatchObject({ method: "GET", host_kind: "drop", path: "/big.bin", status: 200, aborted: true });
    const done = await lineOf(whole.headers["x-request-id"]);
    expect(done).toMatchObject({ path: "/index.html", status: 200, bytes: 12 });
    expect(done).not.toHaveProperty("aborted");
    // One line each, though a response ends ('finish') and closes ('close').
    await new Promise((r) => setTimeout(r, 200));
    expect(logLines().filter((l) => l.request_id === id)).toHaveLength(1);
    expect(logLines().filter((l) => l.request_id === whole.headers["x-request-id"])).toHaveLength(1);
  });
});

describe("a protected drop on the self-hosted data plane", () => {
  it("locks every path, unlocks by the form, limits the body, and never logs the password or the unlock cookie", async () => {
    const password = randomBytes(12).toString("hex");
    const marker = randomBytes(8).toString("hex");
    const deployed = await app.request(appHost, "/deploy", {
      method: "POST",
      body: JSON.stringify({
        files: { "index.html": `<p>${marker}</p>`, "a/index.html": marker, "big.txt": marker.repeat(100) },
      }),
      headers: { "content-type": "application/json", authorization: `Bearer ${proKey}` },
    });
    expect(deployed.status).toBe(200);
    const { slug } = deployed.json() as { slug: string };
    const host = `${slug}.${app.serveDomain}`;
    const set = await app.request(appHost, `/drops/${slug}/access`, {
      method: "PUT",
      body: JSON.stringify({ mode: "password", password }),
      headers: { "content-type": "application/json", authorization: `Bearer ${proKey}` },
    });
    expect(set.status).toBe(200);
    expect(set.text).not.toContain(password);
    for (const [p, headers, method] of [
      ["/", {}, "GET"],
      ["/a", {}, "GET"],
      ["/big.txt", { range: "bytes=0-9" }, "GET"],
      ["/", {}, "HEAD"],
    ] as [string, Record<string, string>, string][]) {
      const r = await app.request(host, p, { method, headers });
      expect(r.status, p).toBe(401);
      expect(r.text + JSON.stringify(r.headers), p).not.toContain(marker);
      expect(r.headers.etag, p).toBeUndefined();
      expect(r.headers.location, p).toBeUndefined();
      expect(r.headers["cache-control"], p).toBe("private, no-store");
    }
    const form = (pw: string) => new URLSearchParams({ password: pw, path: "/a/" }).toString();
    const post = (body: string, headers: Record<string, string> = {}) =>
      app.request(host, "/.well-known/dropsite/unlock", {
        method: "POST",
        body,
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      });
    const wrong = await post(form(`${password}x`));
    expect(wrong.status).toBe(401);
    expect(wrong.headers["set-cookie"]).toBeUndefined();
    // Over the cap, declared or sent without a length (chunked): 413 and no cookie.
    const big = `${form(password)}&pad=${"x".repeat(5000)}`;
    expect((await post(big)).status).toBe(413);
    const chunked = await rawUnlock(host, big);
    expect(chunked.status).toBe(413);
    expect(chunked.raw).not.toMatch(/set-cookie/i);
    const ok = await post(form(password));
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toBe("/a/");
    const setCookie = String(ok.headers["set-cookie"]);
    expect(setCookie).toMatch(/HttpOnly/);
    const cookie = setCookie.split(";")[0]!;
    const open = await app.request(host, "/a/", { headers: { cookie } });
    expect(open.status).toBe(200);
    expect(open.text).toContain(marker);
    expect(open.headers["cache-control"]).toMatch(/^private/);
    const line = await lineOf(ok.headers["x-request-id"]);
    expect(line).toMatchObject({
      method: "POST",
      host_kind: "drop",
      path: "/.well-known/dropsite/unlock",
      status: 303,
      plane: "data",
    });
    const output = app.output();
    expect(output).not.toContain(password);
    expect(output).not.toContain(cookie.split("=")[1]!);
  });
});

/** POSTs a form to a drop host's unlock path with chunked encoding (no Content-Length). */
function rawUnlock(host: string, body: string): Promise<{ status: number; raw: string }> {
  return new Promise((resolve, reject) => {
    const sock = connect(app.port, "127.0.0.1");
    let out = "";
    sock.on("data", (d) => (out += d.toString()));
    sock.on("close", () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1] ?? 0), raw: out }));
    sock.on("error", reject);
    const chunk = Buffer.from(body);
    sock.write(
      [
        `POST /.well-known/dropsite/unlock HTTP/1.1`,
        `Host: ${host}`,
        "Content-Type: application/x-www-form-urlencoded",
        "Transfer-Encoding: chunked",
        "Connection: close",
        "",
        "",
      ].join("\r\n"),
    );
    sock.write(`${chunk.byteLength.toString(16)}\r\n`);
    sock.write(chunk);
    sock.write("\r\n0\r\n\r\n");
  });
}

/** Sends a request's head (a declared body that is never sent) and resolves the answer the server gives before any of it. */
function headOnly(pathname: string, headers: Record<string, string>): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port: app.port, path: pathname, method: "POST", headers: { host: appHost, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          req.destroy();
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            text: body.toString("utf8"),
            json: () => JSON.parse(body.toString("utf8")),
          });
        });
      },
    );
    req.on("error", reject);
    req.flushHeaders();
  });
}

/** Sends a raw request (repeated headers included; no body headers unless given) and resolves the answer's status, request id and envelope code. */
function rawAnswer(
  lines: string[],
  body = "",
): Promise<{ status: number; id: string | undefined; code: string | undefined }> {
  return new Promise((resolve, reject) => {
    const sock = connect(app.port, "127.0.0.1");
    let out = "";
    sock.on("data", (d) => (out += d.toString()));
    sock.on("close", () =>
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1] ?? 0),
        id: /\r\nx-request-id: ([^\r]+)/i.exec(out)?.[1],
        code: /"code":"([a-z_]+)"/.exec(out)?.[1],
      }),
    );
    sock.on("error", reject);
    sock.write([...lines, "Connection: close", "", body].join("\r\n"));
  });
}

/** A path segment with its first character percent-escaped: the same parameter for Next, which the data plane leaves to Next. */
const escaped = (segment: string) => `%${segment.charCodeAt(0).toString(16)}${segment.slice(1)}`;

/** What every JSON answer of the deploy routes carries, whoever answers. */
function expectJsonAnswer(res: HttpResult): void {
  expect(res.headers["cache-control"]).toBe("no-store");
  expect(res.headers["content-type"]).toBe("application/json");
  expect(res.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
}

describe("the data plane receives the deploy bodies", () => {
  it("zip, JSON and HTML deploys, appends and upload targets are answered by the data plane; other methods, bodiless requests and other routes by Next", async () => {
    const zipped = await app.request(appHost, "/deploy", {
      method: "POST",
      body: zip({ "index.html": "<h1>zip</h1>" }),
      headers: { "content-type": "application/zip" },
    });
    expect(zipped.status).toBe(200);
    expectJsonAnswer(zipped);
    const jsonDeploy = await app.request(appHost, "/deploy?ttl=3600", {
      method: "POST",
      body: JSON.stringify({ files: { "index.html": "json" } }),
      headers: { "content-type": "application/json" },
    });
    expect(jsonDeploy.status).toBe(200);
    expect((jsonDeploy.json() as { expires_at: string }).expires_at).toBeTruthy();
    const html = await app.request(appHost, "/deploy", {
      method: "POST",
      body: "<p>html</p>",
      headers: { "content-type": "text/html", "content-length": "11" },
    });
    expect(html.status).toBe(200);
    const { slug } = html.json() as { slug: string };
    // A free account cannot append: the flow still runs (credential, then plan) and answers 402.
    const append = await app.request(appHost, `/deploy/${slug}`, {
      method: "POST",
      body: JSON.stringify({ files: { "b.html": "b" } }),
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
    });
    expect(append.status).toBe(402);
    expect((append.json() as { code: string }).code).toBe("subscription_required");

    const limits = await app.request(appHost, "/limits");
    expect(limits.status).toBe(200);
    const wrongMethod = await app.request(appHost, "/deploy");
    expect(wrongMethod.status).toBe(405);
    // No Content-Length and no Transfer-Encoding: no body, so Next (and its proxy) answers.
    const bodiless = await rawAnswer([`POST /deploy HTTP/1.1`, `Host: ${appHost}`]);
    expect(bodiless.status).toBe(400);
    const preflight = await app.request(appHost, "/deploy/preflight", {
      method: "POST",
      body: JSON.stringify({ files: { "index.html": { sha256: "a".repeat(64), size: 1 } } }),
      headers: { "content-type": "application/json" },
    });
    expect(preflight.status).toBe(200);
    const drop = await app.request(`${slug}.${app.serveDomain}`, "/");
    expect(drop.status).toBe(200);

    const planeOf = async (res: HttpResult) => (await lineOf(res.headers["x-request-id"]))?.plane;
    for (const res of [zipped, jsonDeploy, html, append, drop]) expect(await planeOf(res)).toBe("data");
    for (const res of [limits, wrongMethod, preflight]) expect(await planeOf(res)).toBe("next");
    expect((await lineOf(bodiless.id))?.plane).toBe("next");
    expect(await lineOf(append.headers["x-request-id"])).toMatchObject({
      method: "POST",
      host_kind: "app",
      path: `/deploy/${slug}`,
      status: 402,
      plane: "data",
    });
  });

  it("a subscriber's deploy and append go through the data plane", async () => {
    const auth = { "content-type": "application/json", authorization: `Bearer ${proKey}` };
    const first = await app.request(appHost, "/deploy", {
      method: "POST",
      body: JSON.stringify({ files: { "index.html": "<h1>one</h1>" } }),
      headers: auth,
    });
    expect(first.status).toBe(200);
    const { slug } = first.json() as { slug: string };
    const added = await app.request(appHost, `/deploy/${slug}`, {
      method: "POST",
      body: zip({ "two.html": "<h1>two</h1>" }),
      headers: { ...auth, "content-type": "application/zip" },
    });
    expect(added.status).toBe(200);
    expect(added.json()).toMatchObject({ slug });
    expect((await app.request(`${slug}.${app.serveDomain}`, "/two.html")).text).toBe("<h1>two</h1>");
    expect(await lineOf(added.headers["x-request-id"])).toMatchObject({
      method: "POST",
      path: `/deploy/${slug}`,
      status: 200,
      plane: "data",
    });
  });

  it("a chunked body past the route's cap is cut by the listener (413) and deploys nothing", async () => {
    const drops = async () =>
      (
        (await app.request(appHost, "/drops", { headers: { authorization: `Bearer ${proKey}` } })).json() as {
          total: number;
        }
      ).total;
    const before = await drops();
    const refusals = () =>
      logLines().filter((l) => l.path === "/deploy" && l.status === 413 && l.plane === "data").length;
    const refusedBefore = refusals();
    // 101 MB of a zip's worth of bytes, undeclared: the subscriber's own cap is the route's (100 MB).
    const status = await new Promise<number>((resolve) => {
      let answered = 0;
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port: app.port,
          path: "/deploy",
          method: "POST",
          headers: { host: appHost, "content-type": "application/zip", authorization: `Bearer ${proKey}` },
        },
        (res) => {
          answered = res.statusCode ?? 0;
          res.resume();
          res.on("end", () => resolve(answered));
        },
      );
      // The listener may close the connection before this client reads the answer: 0.
      req.on("error", () => resolve(answered));
      const chunk = Buffer.alloc(1024 * 1024, 120);
      let sent = 0;
      const pump = () => {
        while (!answered && sent < 101 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        if (!answered) req.end();
      };
      pump();
    });
    expect([0, 413]).toContain(status);
    for (let i = 0; i < 100 && refusals() === refusedBefore; i++) await new Promise((r) => setTimeout(r, 50));
    expect(refusals()).toBe(refusedBefore + 1);
    expect(await drops()).toBe(before);
    expect((await app.request(appHost, "/limits")).status).toBe(200);
  });

  it("answers as Next does: the same status, envelope and headers for the same request to the same handler", async () => {
    // Next still takes a path parameter with a percent-escape (the data plane leaves those to
    // it), so one request to /deploy/abc and to /deploy/%61bc reaches the same handler twice.
    const body = JSON.stringify({ files: { "b.html": "b" } });
    const json = { "content-type": "application/json" };
    const cases: [string, string, Record<string, string>, string, number][] = [
      ["/deploy/", "somedrop", { ...json, authorization: "Bearer sp_not-a-key" }, body, 401],
      ["/deploy/", "somedrop", { ...json, authorization: `Bearer ${apiKey}` }, body, 402],
      ["/deploy/once/", `dg_${"A".repeat(43)}`, json, body, 404],
      [
        "/deploy/uploads/",
        `ut_${"B".repeat(43)}/${"c".repeat(64)}`,
        { "content-type": "application/octet-stream" },
        "xyz",
        404,
      ],
    ];
    const volatile = new Set([
      "date",
      "connection",
      "keep-alive",
      "x-request-id",
      "content-length",
      "transfer-encoding",
      "vary",
    ]);
    const stable = (h: HttpResult["headers"]) =>
      Object.fromEntries(Object.entries(h).filter(([k]) => !volatile.has(k)));
    for (const [prefix, param, headers, sent, status] of cases) {
      const method = prefix === "/deploy/uploads/" ? "PUT" : "POST";
      const data = await app.request(appHost, prefix + param, { method, body: sent, headers });
      const next = await app.request(appHost, prefix + escaped(param), { method, body: sent, headers });
      expect(data.status).toBe(status);
      expect(next.status).toBe(status);
      // The same envelope, each with its own request's id.
      const ids = (res: HttpResult) => (res.json() as { request_id?: unknown }).request_id;
      expect(ids(data)).toBe(data.headers["x-request-id"]);
      expect(ids(next)).toBe(next.headers["x-request-id"]);
      expect({ ...(data.json() as object), request_id: "" }).toEqual({ ...(next.json() as object), request_id: "" });
      expect(stable(data.headers)).toEqual(stable(next.headers));
      expectJsonAnswer(data);
      expect(data.headers["content-length"]).toBe(String(data.body.byteLength));
      expect((await lineOf(data.headers["x-request-id"]))?.plane).toBe("data");
      expect((await lineOf(next.headers["x-request-id"]))?.plane).toBe("next");
    }
  });

  it("refused bodies answer the envelope with no-store, JSON and the request id", async () => {
    const zipType = { "content-type": "application/zip" };
    const refusals: [string, () => Promise<HttpResult>, number, string][] = [
      // Past every plan's cap: the listener refuses the declared length before reading.
      [
        "declared past the route's cap",
        () => headOnly("/deploy", { ...zipType, "content-length": String(200 * 1024 * 1024) }),
        413,
        "payload_too_large",
      ],
      // Past the anonymous plan's 25 MB: the handler refuses it before reading.
      [
        "declared past the plan's cap",
        () => headOnly("/deploy", { ...zipType, "content-length": String(30 * 1024 * 1024) }),
        413,
        "payload_too_large",
      ],
      // Undeclared (chunked): read until it passes the plan's 10 MB for JSON, then refused.
      [
        "chunked past the plan's cap",
        () =>
          app.request(appHost, "/deploy", {
            method: "POST",
            body: "x".repeat(11 * 1024 * 1024),
            headers: { "content-type": "application/json" },
          }),
        413,
        "payload_too_large",
      ],
      [
        "invalid zip",
        () =>
          app.request(appHost, "/deploy", {
            method: "POST",
            body: zipWithSymlink("l", "/etc/passwd"),
            headers: zipType,
          }),
        400,
        "invalid_zip",
      ],
      [
        "bad key",
        () =>
          app.request(appHost, "/deploy", {
            method: "POST",
            body: "<p>x</p>",
            headers: { "content-type": "text/html", authorization: "Bearer sp_nope" },
          }),
        401,
        "auth_required",
      ],
    ];
    for (const [name, send, status, code] of refusals) {
      const res = await send();
      expect({ name, status: res.status, code: (res.json() as { code: string }).code }).toEqual({ name, status, code });
      expectJsonAnswer(res);
      expect((await lineOf(res.headers["x-request-id"]))?.plane).toBe("data");
    }
  });
});

describe("many answers at once on the data plane", () => {
  // Pipelined requests, simultaneous connections and clients that leave at once: every answer
  // whole, in order, and the listener goes on (a guard for any change to how the data plane
  // writes, such as holding answers to the end of a turn: docs/benchmarks.md). Last in the
  // file: its deploy spends one of the address's deploys a minute, which the tests above count on.
  /** Reads `count` whole responses (status, headers, body by Content-Length) from one socket. */
  function responses(
    port: number,
    raw: string,
    count: number,
    heads: boolean[],
  ): Promise<{ status: number; body: string }[]> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => socket.write(raw));
      let buf = Buffer.alloc(0);
      const out: { status: number; body: string }[] = [];
      socket.on("data", (chunk: Buffer) => {
        buf = Buffer.concat([buf, chunk]);
        for (;;) {
          const end = buf.indexOf("\r\n\r\n");
          if (end < 0) break;
          const head = buf.subarray(0, end).toString("latin1");
          const length = heads[out.length] ? 0 : Number(/^content-length: (\d+)$/im.exec(head)?.[1] ?? 0);
          if (buf.length < end + 4 + length) break;
          out.push({ status: Number(head.slice(9, 12)), body: buf.subarray(end + 4, end + 4 + length).toString() });
          buf = buf.subarray(end + 4 + length);
        }
        if (out.length === count) {
          socket.destroy();
          resolve(out);
        }
      });
      socket.on("error", reject);
      setTimeout(() => reject(new Error(`only ${out.length} of ${count} answers`)), 10_000).unref();
    });
  }

  it("pipelined requests on one socket, and many sockets at once, each get their whole answer in order", async () => {
    const deployed = await app.request(appHost, "/deploy", {
      method: "POST",
      body: JSON.stringify({ files: { "index.html": "<p>one</p>", "two.txt": "second file" } }),
      headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
    });
    expect(deployed.status).toBe(200);
    const host = `${(deployed.json() as { slug: string }).slug}.localhost:${app.port}`;
    const get = (p: string, method = "GET") => `${method} ${p} HTTP/1.1\r\nHost: ${host}\r\n\r\n`;
    // One write carrying five requests (a 404 and a HEAD among them): the parser hands them on in one turn.
    const piped = await responses(
      app.port,
      get("/") + get("/two.txt") + get("/missing.txt") + get("/two.txt", "HEAD") + get("/two.txt"),
      5,
      [false, false, false, true, false],
    );
    expect(piped.map((r) => r.status)).toEqual([200, 200, 404, 200, 200]);
    expect(piped[0]!.body).toBe("<p>one</p>");
    expect(piped[1]!.body).toBe("second file");
    expect(piped[3]!.body).toBe("");
    expect(piped[4]!.body).toBe("second file");
    // 40 connections each asking at once: every answer arrives whole.
    const many = await Promise.all(
      Array.from({ length: 40 }, (_, i) => responses(app.port, get(i % 2 ? "/two.txt" : "/"), 1, [false])),
    );
    // Clients that ask and leave before their answers are written: the listener goes on answering.
    await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<void>((resolve) => {
            const socket = connect(app.port, "127.0.0.1", () => {
              socket.write(get("/two.txt"));
              socket.destroy();
              resolve();
            });
            socket.on("error", () => resolve());
          }),
      ),
    );
    expect((await responses(app.port, get("/two.txt"), 1, [false]))[0]!.body).toBe("second file");
    expect(many.map(([r]) => r!.body)).toEqual(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? "second file" : "<p>one</p>")),
    );
  });
});
