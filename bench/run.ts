// npm run bench – the serve path against a minimal Node static server and nginx, on the same
// files, with one load generator (wrk, 64 connections). Not a test: numbers vary by machine;
// results are recorded in docs/benchmarks.md. Needs the built app (`npm run build`), and the
// Debian packages nginx and wrk; PostgreSQL 15 for the large-database row.
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { startPgServer, type PgServer } from "../tests/support/pg-server";
import { freePort } from "../tests/support/net";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..");
const DURATION = process.env.BENCH_SECONDS ?? "10";
const CONNECTIONS = 64;

interface WrkResult {
  rps: number;
  p99ms: number;
  bad: number;
  requests: number;
}

function http(port: number, host: string, pathname: string, method = "GET", body?: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: pathname, method, headers: { host, ...headers } }, (res) => {
      let data = "";
      res.on("data", (c) => (data += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
    });
    req.on("error", reject);
    if (body) req.write(body);
    req.end();
  });
}

function ms(v: string, unit: string): number {
  const n = Number(v);
  return unit === "us" ? n / 1000 : unit === "s" ? n * 1000 : unit === "m" ? n * 60_000 : n;
}

async function wrk(port: number, host: string, pathname: string, headers: Record<string, string> = {}, seconds = DURATION): Promise<WrkResult> {
  const args = ["-t2", `-c${CONNECTIONS}`, `-d${seconds}s`, "--latency", "-H", `Host: ${host}`];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
  args.push(`http://127.0.0.1:${port}${pathname}`);
  const { stdout } = await run("wrk", args, { maxBuffer: 1 << 20 });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0);
  const p = /99%\s+([\d.]+)(us|ms|s|m)\b/.exec(stdout);
  const bad = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0) + Number(/Socket errors:.*timeout (\d+)/.exec(stdout)?.[1] ?? 0);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
  return { rps, p99ms: p ? ms(p[1] as string, p[2] as string) : NaN, bad, requests };
}

// --- the three servers -------------------------------------------------------------------------

async function startApp(dataDir: string, vars: Record<string, string> = {}): Promise<{ port: number; proc: ChildProcess; stop: () => Promise<void> }> {
  const port = await freePort();
  const proc = spawn(process.execPath, ["server.mjs"], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "production", PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, BASE_URL: `http://localhost:${port}`, SERVE_DOMAIN: `localhost:${port}`, RATE_LIMIT_DEPLOYS_PER_MINUTE: "100000", ...vars },
    stdio: ["ignore", "ignore", "inherit"],
  });
  for (let i = 0; ; i++) {
    try {
      if ((await http(port, `localhost:${port}`, "/limits")).status === 200) break;
    } catch {
      /* not yet */
    }
    if (i > 240 || proc.exitCode !== null) throw new Error("the app did not start");
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    port,
    proc,
    stop: async () => {
      const exited = new Promise((r) => proc.once("exit", r));
      proc.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    },
  };
}

async function startNginx(siteDir: string, work: string): Promise<{ port: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const conf = path.join(work, "nginx.conf");
  for (const d of ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]) await mkdir(path.join(work, d), { recursive: true });
  await writeFile(
    conf,
    `worker_processes 1;
daemon off;
pid ${work}/nginx.pid;
error_log ${work}/error.log warn;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path ${work}/client_body;
  proxy_temp_path ${work}/proxy;
  fastcgi_temp_path ${work}/fastcgi;
  uwsgi_temp_path ${work}/uwsgi;
  scgi_temp_path ${work}/scgi;
  server { listen 127.0.0.1:${port}; root ${siteDir}; }
}
`,
  );
  // nginx's worker reads files as another user: every directory on the way must be open to it.
  for (let d = work; d !== path.dirname(d) && d.startsWith(tmpdir()); d = path.dirname(d)) await chmod(d, 0o755);
  await chmod(siteDir, 0o755);
  const proc = spawn("nginx", ["-c", conf, "-p", work], { stdio: ["ignore", "ignore", "inherit"] });
  for (let i = 0; ; i++) {
    try {
      if ((await http(port, "localhost", "/index.html")).status === 200) break;
    } catch {
      /* not yet */
    }
    if (i > 40 || proc.exitCode !== null) throw new Error("nginx did not start (or answers non-200: check permissions)");
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    stop: async () => {
      proc.kill("SIGQUIT");
      await new Promise((r) => setTimeout(r, 300));
    },
  };
}

/** The baseline: stat + readFile per request, ETag/304 and one byte range, nothing cached. */
async function startNodeStatic(siteDir: string): Promise<{ port: number; stop: () => Promise<void> }> {
  const types: Record<string, string> = { ".html": "text/html; charset=utf-8", ".jpg": "image/jpeg" };
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const file = path.join(siteDir, decodeURIComponent((req.url ?? "/").split("?")[0] as string));
    try {
      const s = await stat(file);
      const etag = `"${s.size}-${s.mtimeMs}"`;
      const headers: Record<string, string | number> = { "Content-Type": types[path.extname(file)] ?? "application/octet-stream", ETag: etag, "Accept-Ranges": "bytes" };
      if (req.headers["if-none-match"] === etag) return void res.writeHead(304, headers).end();
      const bytes = await readFile(file);
      const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
      if (m) {
        const start = Number(m[1]);
        const end = Math.min(Number(m[2]), bytes.length - 1);
        res.writeHead(206, { ...headers, "Content-Range": `bytes ${start}-${end}/${bytes.length}`, "Content-Length": end - start + 1 });
        return void res.end(bytes.subarray(start, end + 1));
      }
      res.writeHead(200, { ...headers, "Content-Length": bytes.length });
      res.end(bytes);
    } catch {
      res.writeHead(404).end();
    }
  };
  const server: Server = createServer((req, res) => void serve(req, res));
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return { port, stop: () => new Promise((r) => server.close(() => r())) };
}

// --- the run -----------------------------------------------------------------------------------

async function deploySite(port: number, site: Record<string, Uint8Array>): Promise<string> {
  const files = Object.fromEntries(Object.entries(site).map(([p, b]) => [p, { encoding: "base64", content: Buffer.from(b).toString("base64") }]));
  const res = await http(port, `localhost:${port}`, "/deploy", "POST", JSON.stringify({ files }), { "content-type": "application/json" });
  if (res.status !== 200) throw new Error(`deploy failed: ${res.status} ${res.body}`);
  return (JSON.parse(res.body) as { slug: string }).slug;
}

async function bulkRows(pg: PgServer, drops: number, filesPerDrop: number): Promise<void> {
  const { Pool } = await import("pg");
  const pool = new Pool({ connectionString: pg.url });
  try {
    await pool.query(`insert into drops (id, slug, file_count, total_bytes, created_at, updated_at)
      select 'bench-' || i, 'bench' || i, ${filesPerDrop}, ${filesPerDrop * 10240}, now(), now() from generate_series(1, ${drops}) i`);
    await pool.query(`insert into files (drop_id, path, size, sha256, content_type, storage_ref, batch)
      select 'bench-' || i, 'page' || f || '.html', 10240, md5(i::text || '/' || f) || md5(f::text), 'text/html; charset=utf-8', 'bench-' || i || '/b/page' || f || '.html', 'b'
      from generate_series(1, ${drops}) i, generate_series(1, ${filesPerDrop}) f`);
    await pool.query("analyze drops; analyze files");
  } finally {
    await pool.end();
  }
}

const fmt = (r: WrkResult) => `${Math.round(r.rps).toLocaleString("en-US")} req/s, p99 ${r.p99ms.toFixed(1)} ms${r.bad ? ` (${r.bad} bad)` : ""}`;

/** One second of the same load first (JIT, caches, connection setup), then the measured run. */
async function measure(port: number, host: string, pathname: string, headers: Record<string, string> = {}): Promise<WrkResult> {
  await wrk(port, host, pathname, headers, "1");
  return wrk(port, host, pathname, headers);
}

async function main() {
  if (!existsSync(path.join(ROOT, ".next", "dropsite", "data-plane.mjs"))) throw new Error("run `npm run build` first");
  const work = await mkdtemp(path.join(tmpdir(), "dropsite-bench-"));
  const siteDir = path.join(work, "site");
  await mkdir(siteDir);
  const page = new TextEncoder().encode(`<!doctype html><title>bench</title>${"<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>".repeat(160)}`.slice(0, 10 * 1024));
  const asset = randomBytes(1024 * 1024);
  const site = { "index.html": page, "photo.jpg": new Uint8Array(asset) };
  for (const [p, b] of Object.entries(site)) await writeFile(path.join(siteDir, p), b);
  const etag = `"${createHash("sha256").update(page).digest("hex")}"`;

  const rows: string[] = [];
  const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");
  const loadBefore = load();
  const app = await startApp(path.join(work, "data"));
  const nginx = await startNginx(siteDir, path.join(work, "nginx"));
  const node = await startNodeStatic(siteDir);
  let pg: PgServer | undefined;
  try {
    const slug = await deploySite(app.port, site);
    const appHost = `${slug}.localhost:${app.port}`;
    const nginxEtag = String((await http(nginx.port, "localhost", "/index.html")).headers.etag);
    const nodeEtag = String((await http(node.port, "localhost", "/index.html")).headers.etag);
    const scenarios: [string, string, (server: "app" | "node" | "nginx") => Record<string, string>][] = [
      ["10 KB page", "/index.html", () => ({})],
      ["1 MB asset", "/photo.jpg", () => ({})],
      ["304 (If-None-Match)", "/index.html", (s) => ({ "If-None-Match": s === "app" ? etag : s === "node" ? nodeEtag : nginxEtag })],
      ["range (64 KB of the 1 MB asset)", "/photo.jpg", () => ({ Range: "bytes=0-65535" })],
    ];
    rows.push("| scenario | dropsite (built app) | minimal Node | nginx (1 worker) | app ÷ Node (req/s) | app p99 ÷ Node p99 | app ÷ nginx (req/s) |", "|---|---|---|---|---|---|---|");
    for (const [name, p, headers] of scenarios) {
      const a = await measure(app.port, appHost, p, headers("app"));
      const n = await measure(node.port, "localhost", p, headers("node"));
      const x = await measure(nginx.port, "localhost", p, headers("nginx"));
      rows.push(`| ${name} | ${fmt(a)} | ${fmt(n)} | ${fmt(x)} | ${(a.rps / n.rps).toFixed(2)}× | ${(a.p99ms / n.p99ms).toFixed(2)}× | ${(a.rps / x.rps).toFixed(2)}× |`);
      console.error(rows.at(-1));
    }
    await app.stop();

    if (process.env.BENCH_SKIP_PG !== "1") {
      pg = await startPgServer();
      const onPg = await startApp(path.join(work, "data-pg"), { DATABASE_URL: pg.url });
      try {
        const s1 = await deploySite(onPg.port, site);
        const small = await measure(onPg.port, `${s1}.localhost:${onPg.port}`, "/index.html");
        await bulkRows(pg, 100_000, 10);
        const s2 = await deploySite(onPg.port, site);
        const large = await measure(onPg.port, `${s2}.localhost:${onPg.port}`, "/index.html");
        rows.push("", "| 10 KB page on PostgreSQL | result |", "|---|---|");
        rows.push(`| small database (2 drops) | ${fmt(small)} |`);
        rows.push(`| 100,002 drops, 1,000,002 file rows | ${fmt(large)} (${(large.rps / small.rps).toFixed(2)}× the small database) |`);
      } finally {
        await onPg.stop();
      }
    }
  } finally {
    await app.stop().catch(() => undefined);
    await nginx.stop();
    await node.stop();
    await pg?.stop();
    await rm(work, { recursive: true, force: true });
  }
  console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}`);
  console.log(`Load average before: ${loadBefore}; after: ${load()}`);
  console.log(`wrk -t2 -c${CONNECTIONS} -d${DURATION}s after a 1 s warm-up, one run each, loopback\n`);
  console.log(rows.join("\n"));
}

await main();
