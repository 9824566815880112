import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startApp, type HttpResult } from "../support/app-server";

// The Vercel path (`next start`: proxy.ts rewrites a drop host to pages/api/serve-drop) and the
// self-hosted data plane (server.mjs) answer a drop with the same bytes and headers: no
// `Vary: rsc, next-router-state-tree, …`, a Content-Length, no chunked framing. The same data
// directory is served first by `next start`, then by server.mjs on the same port.

const ROOT = path.resolve(import.meta.dirname, "../..");
let dataDir: string;
let port: number;
let slug: string;

/** What each path answered, per request. */
const answers: Record<"next" | "plane", HttpResult[]> = { next: [], plane: [] };

const css = `body { color: teal; }\n${"/* padding so the file is worth compressing */\n".repeat(60)}`;
const binary = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256));
// `host`: a preview host's selector (`v1`: the drop's one version; `v2`: none kept; `v01`: no version).
const requests: { path: string; method?: string; headers?: Record<string, string>; host?: string }[] = [
  { path: "/" },
  { path: "/", headers: { "accept-encoding": "gzip, br" } },
  { path: "/style.css" },
  { path: "/style.css", headers: { "accept-encoding": "gzip" } },
  { path: "/data.bin", headers: { "accept-encoding": "gzip" } },
  { path: "/data.bin", headers: { range: "bytes=10-99" } },
  { path: "/about" },
  { path: "/docs" },
  { path: "/missing.html" },
  { path: "/", method: "HEAD" },
  { path: "/", host: "v1" },
  { path: "/style.css", host: "v1", headers: { "accept-encoding": "gzip" } },
  { path: "/data.bin", host: "v1", headers: { range: "bytes=10-99" } },
  { path: "/missing.html", host: "v1" },
  { path: "/", host: "v2" },
  { path: "/", host: "v01" },
];

function send(
  host: string,
  p: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path: p,
        method: opts.method ?? "GET",
        headers: { host, ...(opts.headers ?? {}) },
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
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
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

async function visitAll(which: "next" | "plane"): Promise<void> {
  for (const r of requests)
    answers[which].push(await send(`${slug}${r.host ? `---${r.host}` : ""}.localhost:${port}`, r.path, r));
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-vercel-path-"));
  port = await freePort();
  const vars = {
    NODE_ENV: "production" as const,
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    SERVE_DOMAIN: `localhost:${port}`,
    DATA_DIR: dataDir,
    RATE_LIMIT_DEPLOYS_PER_MINUTE: "100",
  };
  const next = spawn(
    process.execPath,
    // Bound by the name "localhost" (loopback): Next writes its own origin so, and a proxy.ts
    // rewrite is then internal, as on Vercel. Bound as "127.0.0.1", `next start` takes every
    // rewrite for another origin's and proxies it to itself over HTTP.
    [path.join(ROOT, "node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "localhost"],
    { cwd: ROOT, env: { ...process.env, ...vars }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  next.stdout.on("data", (d) => (out += d));
  next.stderr.on("data", (d) => (out += d));
  try {
    for (let i = 0; ; i++) {
      if (next.exitCode !== null) throw new Error(`next start exited:\n${out}`);
      const up = await send(`localhost:${port}`, "/limits").catch(() => undefined);
      if (up?.status === 200) break;
      if (i > 240) throw new Error(`next start did not answer:\n${out}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const files = {
      "index.html": "<!doctype html><h1>same on both paths</h1>",
      "style.css": css,
      "data.bin": { encoding: "base64", content: binary.toString("base64") },
      "about.html": "<p>about</p>",
      "docs/index.html": "<p>docs</p>",
    };
    const body = JSON.stringify({ files });
    const deployed = await send(`localhost:${port}`, "/deploy", {
      method: "POST",
      body,
      headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
    });
    expect(deployed.status, deployed.text).toBe(200);
    slug = (deployed.json() as { slug: string }).slug;
    await visitAll("next");
  } finally {
    const exited = new Promise((r) => next.once("exit", r));
    next.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (next.exitCode === null) next.kill("SIGKILL");
  }
  const app = await startApp({ RATE_LIMIT_DEPLOYS_PER_MINUTE: "100" }, { port, dataDir });
  try {
    await visitAll("plane");
  } finally {
    await app.stop();
  }
}, 240_000);
afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** Per connection or per request: the date, keep-alive and the request's own id. */
const PER_REQUEST = new Set(["date", "connection", "keep-alive", "x-request-id"]);
const headersOf = (r: HttpResult) => Object.fromEntries(Object.entries(r.headers).filter(([k]) => !PER_REQUEST.has(k)));

describe("a drop answers the same on the Vercel path (next start) and the data plane", () => {
  it.each(requests.map((r, i) => [`${r.method ?? "GET"} ${r.path} ${JSON.stringify(r.headers ?? {})}`, i] as const))(
    "%s: status, headers and bytes",
    (_name, i) => {
      const next = answers.next[i]!;
      const plane = answers.plane[i]!;
      expect(next.status).toBe(plane.status);
      expect(headersOf(next)).toEqual(headersOf(plane));
      expect(Buffer.compare(next.body, plane.body)).toBe(0);
      expect(next.headers.vary ?? "").not.toMatch(/rsc|next-router/i);
      // Each path names the request (X-Request-Id), and nothing of Next's rewrite leaks.
      expect(next.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
      expect(plane.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
      expect(Object.keys(next.headers).filter((h) => h.startsWith("x-middleware-"))).toEqual([]);
      expect(next.headers["transfer-encoding"]).toBeUndefined();
      // A Content-Length on every answer, true to the bytes (a HEAD declares the GET's).
      expect(next.headers["content-length"]).toBe(
        requests[i]!.method === "HEAD" ? plane.headers["content-length"] : String(next.body.byteLength),
      );
    },
  );

  it("answered what each request asks for (so the comparison compares something)", () => {
    const [plain, gzipped, cssPlain, cssGz, bin, range, about, docs, missing, head] = answers.plane;
    expect([
      plain!.status,
      gzipped!.status,
      cssPlain!.status,
      bin!.status,
      range!.status,
      missing!.status,
      head!.status,
    ]).toEqual([200, 200, 200, 200, 206, 404, 200]);
    expect(cssGz!.headers["content-encoding"]).toBe("gzip");
    expect(cssPlain!.text).toBe(css);
    expect(Buffer.compare(bin!.body, binary)).toBe(0);
    expect(range!.body.byteLength).toBe(90);
    expect([about!.status, docs!.status]).toEqual([200, 308]);
  });

  it("a preview host serves the version it names, noindex; a version not kept and v01 answer the small 404", () => {
    const [home, css, range, missing, notKept, malformed] = answers.plane.slice(10);
    expect([home!.status, css!.status, range!.status, missing!.status]).toEqual([200, 200, 206, 404]);
    expect(home!.text).toBe("<!doctype html><h1>same on both paths</h1>");
    expect(css!.headers["content-encoding"]).toBe("gzip");
    expect(range!.body.byteLength).toBe(90);
    for (const r of [home, css, range, missing, notKept, malformed]) expect(r!.headers["x-robots-tag"]).toBe("noindex");
    expect(notKept!.status).toBe(404);
    expect(notKept!.text).toContain("Version 2 of this drop is no longer kept");
    expect(malformed!.status).toBe(404);
    expect(malformed!.text).not.toContain("same on both paths");
  });
});
