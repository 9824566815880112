// npm run bench – measures the hot paths on this machine and prints a Markdown table.
// Not a test: numbers vary by machine; results are recorded in docs/benchmarks.md.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, request } from "node:http";
import { cpus, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { zipSync } from "fflate";
import { createContext } from "../lib/context";
import { parseEnv } from "../lib/env";
import { createDrop } from "../lib/drops/deploy";
import { anonymousCaller } from "../lib/auth/caller";
import { serveDrop } from "../lib/serve/serve";
import { resolveHost } from "../lib/serve/host";
import { unzipBody } from "../lib/deploy/zip";
import { ApiError } from "../lib/errors";

const MB = 1024 * 1024;

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

function get(agent: Agent, port: number, host: string, pathname: string, method = "GET", body?: string, type?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: pathname, method, agent, headers: { host, ...(type ? { "content-type": type } : {}) } }, (res) => {
      let data = "";
      res.on("data", (c) => (data += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on("error", reject);
    if (body) req.write(body);
    req.end();
  });
}

// The built app over loopback HTTP (server.mjs → proxy.ts → serve route), 16 requests in flight.
async function httpBench(): Promise<[string, string][]> {
  const dir = await mkdtemp(path.join(tmpdir(), "dropsite-bench-http-"));
  const port = 3000 + Math.floor(Math.random() * 2000) + 3000;
  const proc = spawn(process.execPath, ["server.mjs"], {
    env: { ...process.env, NODE_ENV: "production", PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dir, BASE_URL: `http://localhost:${port}`, SERVE_DOMAIN: `localhost:${port}`, RATE_LIMIT_DEPLOYS_PER_MINUTE: "100000" },
    stdio: "ignore",
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const app = `localhost:${port}`;
  try {
    for (let i = 0; ; i++) {
      try {
        if ((await get(agent, port, app, "/limits")).status === 200) break;
      } catch {
        if (i > 120) throw new Error("app did not start");
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    const deployed = await get(agent, port, app, "/deploy", "POST", "<h1>bench</h1>", "text/html");
    const slug = (JSON.parse(deployed.body) as { slug: string }).slug;
    const host = `${slug}.localhost:${port}`;
    const total = 3000;
    let sent = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (sent < total) {
          sent++;
          const r = await get(agent, port, host, "/");
          if (r.status !== 200) throw new Error(`status ${r.status}`);
        }
      }),
    );
    const serveRate = Math.round((total / (performance.now() - start)) * 1000);
    const deploys = 100;
    const t0 = performance.now();
    for (let i = 0; i < deploys; i++) await get(agent, port, app, "/deploy", "POST", `<h1>${i}</h1>`, "text/html");
    return [
      ["serve over HTTP (built app, 16 in flight)", `${serveRate} req/s`],
      ["POST /deploy over HTTP, small HTML, sequential", `${((performance.now() - t0) / deploys).toFixed(1)} ms each`],
    ];
  } finally {
    agent.destroy();
    proc.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 500));
    await rm(dir, { recursive: true, force: true });
  }
}

async function main() {
  const dir = await mkdtemp(path.join(tmpdir(), "dropsite-bench-"));
  const env = parseEnv({ DATA_DIR: dir, SERVE_DOMAIN: "drops.localhost:3000", NODE_ENV: "production" });
  const ctx = await createContext(env);
  const rows: [string, string][] = [];

  // Deploy: 100 files of 10 KB through the whole pipeline (storage + one transaction).
  const files = Array.from({ length: 100 }, (_, i) => ({ path: `assets/f${i}.js`, bytes: new Uint8Array(10 * 1024).fill(65 + (i % 26)) }));
  files.push({ path: "index.html", bytes: new TextEncoder().encode("<h1>bench</h1>") });
  const deploys = 20;
  const d = await timed(async () => {
    let last: Awaited<ReturnType<typeof createDrop>> | undefined;
    for (let i = 0; i < deploys; i++) last = await createDrop(ctx, anonymousCaller, { files, ttl: 3600 });
    return last!;
  });
  rows.push(["deploy, 101 files / 1 MB (PGlite + filesystem)", `${(d.ms / deploys).toFixed(1)} ms each`]);

  // Serve: the lib/serve function itself, no HTTP, index.html of that drop.
  const action = resolveHost(`${d.value.slug}.drops.localhost:3000`, { serveDomain: env.SERVE_DOMAIN, appHost: "localhost:3000" });
  const n = 2000;
  const s = await timed(async () => {
    for (let i = 0; i < n; i++) {
      const res = await serveDrop(ctx, action, { method: "GET", pathname: i % 2 ? "/" : "/assets/f7.js", headers: new Headers() });
      await res.arrayBuffer();
    }
  });
  rows.push(["serve (lib/serve, in process), mixed HTML/asset", `${Math.round((n / s.ms) * 1000)} req/s`]);
  const c = await timed(async () => {
    for (let i = 0; i < n; i++) {
      const res = await serveDrop(ctx, action, { method: "GET", pathname: "/assets/f7.js", headers: new Headers({ "if-none-match": '"x"' }) });
      await res.arrayBuffer();
    }
  });
  rows.push(["serve 304-miss path (ETag compare + read)", `${Math.round((n / c.ms) * 1000)} req/s`]);

  // Zip: a 20 MB archive of compressible text (well within 4x), unpacked and checked.
  const big: Record<string, Uint8Array> = {};
  const words = ["lorem", "ipsum", "dolor", "sit", "amet", "static", "site", "drop", "deploy", "serve"];
  let seed = 1;
  const word = () => words[(seed = (seed * 1103515245 + 12345) >>> 0) % words.length];
  for (let i = 0; i < 80; i++) big[`site/page${i}.html`] = new TextEncoder().encode(`<p>${Array.from({ length: 40_000 }, word).join(" ")}</p>`);
  const zipped = zipSync(big, { level: 1 });
  const rssBefore = process.memoryUsage().rss;
  const z = await timed(async () =>
    unzipBody(zipped, {
      maxFiles: 100,
      maxTotalBytes: 1000 * MB,
      maxFileBytes: 100 * MB,
      tooManyFiles: () => new ApiError("file_cap_exceeded", "x"),
      tooLarge: () => new ApiError("payload_too_large", "x"),
    }),
  );
  const unpacked = z.value.reduce((nBytes, f) => nBytes + f.bytes.byteLength, 0);
  rows.push([`unzip ${(zipped.byteLength / MB).toFixed(1)} MB → ${(unpacked / MB).toFixed(0)} MB, 80 files`, `${z.ms.toFixed(0)} ms, RSS +${((process.memoryUsage().rss - rssBefore) / MB).toFixed(0)} MB`]);

  await ctx.dbHandle.close();
  await rm(dir, { recursive: true, force: true });
  if (existsSync(".next/BUILD_ID")) rows.push(...(await httpBench()));
  else rows.push(["HTTP through the built app", "skipped: run `npm run build` first"]);
  console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}\n`);
  console.log("| measurement | result |\n|---|---|");
  for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
}

await main();
