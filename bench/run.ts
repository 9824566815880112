// npm run bench – the serve path against a minimal Node static server and nginx, on the same
// files, with one load generator (wrk, 64 connections); a 10 KB page with and without the most
// site rules a drop may have, and a redirect; a 900-file zip deploy against `unzip -q`
// with the server's memory growth; a redeploy of 500 files with 3 changed through the CLI's
// preflight flow against a full deploy. Not a test: numbers vary by machine; results are
// recorded in docs/benchmarks.md. Needs the built app (`npm run build`), and the Debian
// packages nginx and wrk (serve), PostgreSQL 15 (the large-database row) and unzip (zip).
// A drop with 100 versions against a drop with one, and the time from a rollback to the first
// byte of the old version, in the app that took it and in a second app on the same PostgreSQL.
// A drop on its custom domain against the same drop on its slug host (a local DNS server holds
// the TXT record). BENCH_ONLY=serve,rules,workers,domains,pg,versions,zip,redeploy runs only the
// named sections (workers: npm start with WEB_CONCURRENCY=2 beside one worker, on PostgreSQL).
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { createServer as createTcpServer, connect } from "node:net";
import { zipSync, type Zippable } from "fflate";
import path from "node:path";
import { promisify } from "node:util";
import { startPgServer, type PgServer } from "../tests/support/pg-server";
import { startS3Server, type S3Server } from "../tests/support/s3-server";
import { freePort } from "../tests/support/net";
import { accountWithKey } from "../tests/support/accounts";
import { createContext } from "../lib/context";
import { parseEnv } from "../lib/env";
import { limits } from "../lib/plans";
import { startDnsStandin } from "../tests/support/dns-standin";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..");
const DURATION = process.env.BENCH_SECONDS ?? "10";
const CONNECTIONS = 64;
const ONLY = new Set((process.env.BENCH_ONLY ?? "serve,rules,workers,domains,pg,versions,zip,redeploy").split(",").map((x) => x.trim()));
const want = (section: string) => ONLY.has(section);

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

async function startApp(dataDir: string, vars: Record<string, string> = {}, port?: number): Promise<{ port: number; proc: ChildProcess; stop: () => Promise<void> }> {
  port ??= await freePort();
  // With WEB_CONCURRENCY (the workers section, either count) the log goes to a file, read for
  // every worker's "ready" line.
  const workers = Number(vars.WEB_CONCURRENCY ?? 1);
  const logFile = vars.WEB_CONCURRENCY !== undefined ? path.join(dataDir, "..", `server-${port}.log`) : undefined;
  const out = logFile ? openSync(logFile, "w") : "ignore";
  const proc = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean), "server.mjs"], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "production", PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, BASE_URL: `http://localhost:${port}`, SERVE_DOMAIN: `localhost:${port}`, RATE_LIMIT_DEPLOYS_PER_MINUTE: "100000", ...vars },
    stdio: ["ignore", out, "inherit"],
  });
  if (typeof out === "number") closeSync(out);
  for (let i = 0; ; i++) {
    try {
      const ready = !logFile || (readFileSync(logFile, "utf8").match(/> dropsite ready on/g)?.length ?? 0) >= workers;
      if (ready && (await http(port, `localhost:${port}`, "/limits")).status === 200) break;
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

/** A drop of the key's account, protected with a password, and the cookie its unlock form sets. */
async function protectedDrop(port: number, site: Record<string, Uint8Array>, key: string): Promise<{ slug: string; cookie: string }> {
  const files = Object.fromEntries(Object.entries(site).map(([p, b]) => [p, { encoding: "base64", content: Buffer.from(b).toString("base64") }]));
  const auth = { "content-type": "application/json", authorization: `Bearer ${key}` };
  const res = await http(port, `localhost:${port}`, "/deploy", "POST", JSON.stringify({ files }), auth);
  if (res.status !== 200) throw new Error(`deploy failed: ${res.status} ${res.body}`);
  const { slug } = JSON.parse(res.body) as { slug: string };
  const password = "bench password";
  const access = await http(port, `localhost:${port}`, `/drops/${slug}/access`, "PUT", JSON.stringify({ mode: "password", password }), auth);
  if (access.status !== 200) throw new Error(`protect failed: ${access.status} ${access.body}`);
  const form = new URLSearchParams({ password, path: "/" }).toString();
  const unlock = await http(port, `${slug}.localhost:${port}`, "/.well-known/dropsite/unlock", "POST", form, { "content-type": "application/x-www-form-urlencoded" });
  const set = unlock.headers["set-cookie"];
  const cookie = (Array.isArray(set) ? String(set[0]) : "").split(";")[0];
  if (unlock.status !== 303 || !cookie) throw new Error(`unlock failed: ${unlock.status}`);
  return { slug, cookie };
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

async function serveSections(work: string, rows: string[]) {
  const siteDir = path.join(work, "site");
  await mkdir(siteDir);
  const page = new TextEncoder().encode(`<!doctype html><title>bench</title>${"<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>".repeat(160)}`.slice(0, 10 * 1024));
  const asset = randomBytes(1024 * 1024);
  const site = { "index.html": page, "photo.jpg": new Uint8Array(asset) };
  for (const [p, b] of Object.entries(site)) await writeFile(path.join(siteDir, p), b);
  const etag = `"${createHash("sha256").update(page).digest("hex")}"`;

  let pg: PgServer | undefined;
  if (want("serve")) {
    // An account for the protected drop, made in the app's store before it starts (PGlite is single-process).
    const [ownerKey] = await makeAccounts(path.join(work, "data"), 1);
    const app = await startApp(path.join(work, "data"));
    const nginx = await startNginx(siteDir, path.join(work, "nginx"));
    const node = await startNodeStatic(siteDir);
    try {
      const slug = await deploySite(app.port, site);
      const locked = await protectedDrop(app.port, site, ownerKey!);
      const appHost = `${slug}.localhost:${app.port}`;
      const nginxEtag = String((await http(nginx.port, "localhost", "/index.html")).headers.etag);
      const nodeEtag = String((await http(node.port, "localhost", "/index.html")).headers.etag);
      const scenarios: [string, string, (server: "app" | "node" | "nginx") => Record<string, string>][] = [
        ["10 KB page", "/index.html", () => ({})],
        ["1 MB asset", "/photo.jpg", () => ({})],
        ["304 (If-None-Match)", "/index.html", (s) => ({ "If-None-Match": s === "app" ? etag : s === "node" ? nodeEtag : nginxEtag })],
        ["range (64 KB of the 1 MB asset)", "/photo.jpg", () => ({ Range: "bytes=0-65535" })],
      ];
      rows.push(`wrk -t2 -c${CONNECTIONS} -d${DURATION}s after a 1 s warm-up, one run each, loopback`, "");
      rows.push("| scenario | dropsite (built app) | minimal Node | nginx (1 worker) | app ÷ Node (req/s) | app p99 ÷ Node p99 | app ÷ nginx (req/s) |", "|---|---|---|---|---|---|---|");
      for (const [name, p, headers] of scenarios) {
        const a = await measure(app.port, appHost, p, headers("app"));
        const n = await measure(node.port, "localhost", p, headers("node"));
        const x = await measure(nginx.port, "localhost", p, headers("nginx"));
        rows.push(`| ${name} | ${fmt(a)} | ${fmt(n)} | ${fmt(x)} | ${(a.rps / n.rps).toFixed(2)}× | ${(a.p99ms / n.p99ms).toFixed(2)}× | ${(a.rps / x.rps).toFixed(2)}× |`);
        console.error(rows.at(-1));
      }
      // A password-protected drop, unlocked (its cookie checked on every request), and its lock page.
      const unlocked = await measure(app.port, `${locked.slug}.localhost:${app.port}`, "/index.html", { Cookie: locked.cookie });
      const lockPage = await measure(app.port, `${locked.slug}.localhost:${app.port}`, "/index.html");
      rows.push(`| 10 KB page, password-protected, unlocked | ${fmt(unlocked)} | — | — | — | — | — |`);
      // wrk counts every non-2xx/3xx answer as bad: here each one is the expected 401.
      rows.push(`| the lock page (401) of the same drop | ${fmt({ ...lockPage, bad: 0 })} | — | — | — | — | — |`);
      console.error(rows.at(-2), "\n", rows.at(-1));
    } finally {
      await app.stop();
      await nginx.stop();
      await node.stop();
    }
  }

  if (want("rules")) {
    // The same 10 KB page from a drop with the most site rules a drop may have and from the
    // same drop without rules, in one server, alternating twice; and a redirect beside them.
    const app = await startApp(path.join(work, "data-rules"));
    try {
      const half = limits.free.redirectRules / 2;
      const redirects = [
        ...Array.from({ length: half }, (_, i) => `/old/p${i} /new/p${i} 301`),
        ...Array.from({ length: half }, (_, i) => `/:lang/old${i} /:lang/new${i} 302`),
      ].join("\n");
      const headers = [
        "/*\n  Cross-Origin-Opener-Policy: same-origin\n  Cross-Origin-Embedder-Policy: require-corp",
        ...Array.from({ length: limits.free.headerRules - 1 }, (_, i) => `/s${i}/*\n  Cache-Control: public, max-age=${i + 60}`),
      ].join("\n");
      const enc = new TextEncoder();
      const plain = await deploySite(app.port, { "index.html": page });
      const ruled = await deploySite(app.port, { "index.html": page, _redirects: enc.encode(redirects), _headers: enc.encode(headers) });
      const plainHost = `${plain}.localhost:${app.port}`;
      const ruledHost = `${ruled}.localhost:${app.port}`;
      const probe = await http(app.port, ruledHost, `/old/p${half - 1}`);
      if (probe.status !== 301) throw new Error(`the rules drop does not redirect: ${probe.status}`);
      const without: WrkResult[] = [];
      const withRules: WrkResult[] = [];
      // Alternating pairs, so that a burst of load elsewhere on the machine hits both sides.
      for (let i = 0; i < 3; i++) {
        without.push(await measure(app.port, plainHost, "/index.html"));
        withRules.push(await measure(app.port, ruledHost, "/index.html"));
      }
      const redirect = await measure(app.port, ruledHost, `/old/p${half - 1}`);
      const placeholder = await measure(app.port, ruledHost, `/fr/old${half - 1}`);
      const ratios = withRules.map((r, i) => r.rps / without[i]!.rps);
      const mid = ratios.indexOf(median(ratios));
      const w = without[mid]!;
      const r = withRules[mid]!;
      rows.push(
        "",
        `Site rules: ${limits.free.redirectRules} redirect rules (${half} under a literal first segment, ${half} under a placeholder) and ${limits.free.headerRules} header rules; three alternating pairs, the pair with the median ratio shown`,
        "",
        "| scenario | dropsite (built app) | ÷ the drop without rules |",
        "|---|---|---|",
      );
      rows.push(`| 10 KB page, drop without rules | ${fmt(w)} | 1.00× |`);
      rows.push(`| 10 KB page, drop with the rules | ${fmt(r)} | ${(r.rps / w.rps).toFixed(2)}× (pairs: ${ratios.map((x) => x.toFixed(2)).join(", ")}; target ≥ 0.90×) |`);
      rows.push(`| 301 by the last literal rule | ${fmt(redirect)} | ${(redirect.rps / w.rps).toFixed(2)}× |`);
      rows.push(`| 302 by the last placeholder rule | ${fmt(placeholder)} | ${(placeholder.rps / w.rps).toFixed(2)}× |`);
      console.error(rows.slice(-4).join("\n"));
    } finally {
      await app.stop();
    }
  }

  if (want("workers")) {
    // npm start with WEB_CONCURRENCY=2 beside one worker, both on PostgreSQL (workers need a
    // shared database), the same drop and load; wrk runs on the same machine and shares its cores.
    pg = await startPgServer();
    const results: Record<string, WrkResult[]> = {};
    try {
      for (const count of [1, 2]) {
        const app = await startApp(path.join(work, `data-workers-${count}`), { DATABASE_URL: pg.url, WEB_CONCURRENCY: String(count) });
        try {
          const slug = await deploySite(app.port, site);
          const host = `${slug}.localhost:${app.port}`;
          results[count] = [await measure(app.port, host, "/index.html"), await measure(app.port, host, "/photo.jpg")];
        } finally {
          await app.stop();
        }
      }
    } finally {
      await pg.stop();
    }
    const [one, two] = [results[1]!, results[2]!];
    rows.push("", `npm start on PostgreSQL, wrk -t2 -c${CONNECTIONS} -d${DURATION}s after a 1 s warm-up (wrk on the same ${cpus().length} cores)`, "");
    rows.push("| scenario | 1 worker | WEB_CONCURRENCY=2 | 2 workers ÷ 1 (req/s) |", "|---|---|---|---|");
    for (const [i, name] of ["10 KB page", "1 MB asset"].entries()) {
      rows.push(`| ${name} | ${fmt(one[i]!)} | ${fmt(two[i]!)} | ${(two[i]!.rps / one[i]!.rps).toFixed(2)}× |`);
    }
    console.error(rows.slice(-2).join("\n"));
  }

  if (want("domains")) {
    // The same 10 KB page of one Team drop on its slug host and on a verified custom domain, in
    // one server, alternating three times; the custom domain's extra work is its lookup key.
    const dns = await startDnsStandin();
    const dataDir = path.join(work, "data-domains");
    const [key] = await makeAccounts(dataDir, 1, {}, "team");
    const app = await startApp(dataDir, { DNS_SERVERS: dns.servers });
    try {
      const auth = { "content-type": "application/json", authorization: `Bearer ${key!}` };
      const files = { "index.html": { encoding: "base64", content: Buffer.from(page).toString("base64") } };
      const deployed = await http(app.port, `localhost:${app.port}`, "/deploy", "POST", JSON.stringify({ files }), auth);
      if (deployed.status !== 200) throw new Error(`deploy failed: ${deployed.status} ${deployed.body}`);
      const { slug } = JSON.parse(deployed.body) as { slug: string };
      const hostname = "bench.example.org";
      const added = await http(app.port, `localhost:${app.port}`, "/domains", "POST", JSON.stringify({ hostname, slug }), auth);
      if (added.status !== 201) throw new Error(`add domain failed: ${added.status} ${added.body}`);
      const { verification } = JSON.parse(added.body) as { verification: { name: string; value: string } };
      dns.setTxt(verification.name, [verification.value]);
      const verified = await http(app.port, `localhost:${app.port}`, `/domains/${hostname}/verify`, "POST", undefined, { authorization: `Bearer ${key!}` });
      if ((JSON.parse(verified.body) as { status?: string }).status !== "active") throw new Error(`verify failed: ${verified.status} ${verified.body}`);
      const slugHost = `${slug}.localhost:${app.port}`;
      const probe = await http(app.port, hostname, "/index.html");
      if (probe.status !== 200 || probe.body !== new TextDecoder().decode(page)) throw new Error(`the custom domain does not serve the page: ${probe.status}`);
      const onSlug: WrkResult[] = [];
      const onDomain: WrkResult[] = [];
      for (let i = 0; i < 3; i++) {
        onSlug.push(await measure(app.port, slugHost, "/index.html"));
        onDomain.push(await measure(app.port, hostname, "/index.html"));
      }
      const ratios = onDomain.map((r, i) => r.rps / onSlug[i]!.rps);
      const mid = ratios.indexOf(median(ratios));
      rows.push("", "Custom domains: one drop's 10 KB page on its slug host and on its verified custom domain; three alternating pairs, the pair with the median ratio shown", "");
      rows.push("| scenario | dropsite (built app) | ÷ the slug host |", "|---|---|---|");
      rows.push(`| 10 KB page, slug host | ${fmt(onSlug[mid]!)} | 1.00× |`);
      rows.push(`| 10 KB page, custom domain | ${fmt(onDomain[mid]!)} | ${ratios[mid]!.toFixed(2)}× (pairs: ${ratios.map((x) => x.toFixed(2)).join(", ")}; target ≥ 0.95×) |`);
      console.error(rows.slice(-2).join("\n"));
    } finally {
      await app.stop();
      await dns.close();
    }
  }

  if (want("pg") && process.env.BENCH_SKIP_PG !== "1") {
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
      await pg.stop();
    }
  }
}

// --- versions ----------------------------------------------------------------------------------

/** Deploys (or replaces) the key's named drop with one page; returns its slug and version. */
async function deployNamed(port: number, key: string, name: string, page: Uint8Array): Promise<{ slug: string; version: number }> {
  const files = { "index.html": { encoding: "base64", content: Buffer.from(page).toString("base64") } };
  const res = await http(port, `localhost:${port}`, `/deploy?name=${name}`, "POST", JSON.stringify({ files }), { "content-type": "application/json", authorization: `Bearer ${key}` });
  if (res.status !== 200) throw new Error(`deploy failed: ${res.status} ${res.body}`);
  return JSON.parse(res.body) as { slug: string; version: number };
}

/**
 * Rolls the drop to `version` through `writer`, then asks `reader` for the page until it answers
 * `expected`: milliseconds from sending the rollback to the first byte of the right answer.
 */
async function rollbackToFirstByte(writer: number, reader: number, key: string, slug: string, version: number, expected: string): Promise<number> {
  const t0 = performance.now();
  const res = await http(writer, `localhost:${writer}`, `/drops/${slug}/rollback`, "POST", JSON.stringify({ version }), { "content-type": "application/json", authorization: `Bearer ${key}` });
  if (res.status !== 200) throw new Error(`rollback failed: ${res.status} ${res.body}`);
  for (;;) {
    const page = await http(reader, `${slug}.localhost:${reader}`, "/index.html");
    if (page.body === expected) return performance.now() - t0;
    if (performance.now() - t0 > 60_000) throw new Error(`the rollback never showed: ${page.status} ${page.body.slice(0, 200)}`);
  }
}

async function versionsSection(work: string, rows: string[]) {
  const pageOf = (v: number) => new TextEncoder().encode(`<!doctype html><title>v${v}</title>${"<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>".repeat(160)}`.slice(0, 10 * 1024));
  const dataDir = path.join(work, "data-versions");
  const [key] = await makeAccounts(dataDir, 1);
  const app = await startApp(dataDir);
  try {
    const one = await deployNamed(app.port, key!, "one-version", pageOf(1));
    let hundred = { slug: "", version: 0 };
    for (let v = 1; v <= limits.pro.versionsKept; v++) hundred = await deployNamed(app.port, key!, "hundred-versions", pageOf(v));
    if (hundred.version !== limits.pro.versionsKept) throw new Error(`expected version ${limits.pro.versionsKept}, got ${hundred.version}`);
    const oneHost = `${one.slug}.localhost:${app.port}`;
    const hundredHost = `${hundred.slug}.localhost:${app.port}`;
    const single: WrkResult[] = [];
    const many: WrkResult[] = [];
    for (let i = 0; i < 3; i++) {
      single.push(await measure(app.port, oneHost, "/index.html"));
      many.push(await measure(app.port, hundredHost, "/index.html"));
    }
    const ratios = many.map((r, i) => r.rps / single[i]!.rps);
    const mid = ratios.indexOf(median(ratios));
    // Rollbacks in the same process: back to version 1 and forward to the last, ten times each.
    const first = new TextDecoder().decode(pageOf(1));
    const last = new TextDecoder().decode(pageOf(hundred.version));
    const inProcess: number[] = [];
    for (let i = 0; i < 10; i++) {
      inProcess.push(await rollbackToFirstByte(app.port, app.port, key!, hundred.slug, 1, first));
      inProcess.push(await rollbackToFirstByte(app.port, app.port, key!, hundred.slug, hundred.version, last));
    }
    rows.push(
      "",
      `Versions: a named drop replaced ${hundred.version} times (the pro plan keeps ${limits.pro.versionsKept} versions) against a named drop with one version, the same 10 KB page; three alternating pairs, the pair with the median ratio shown`,
      "",
      "| scenario | result |",
      "|---|---|",
      `| 10 KB page, drop with 1 version | ${fmt(single[mid]!)} |`,
      `| 10 KB page, drop with ${hundred.version} versions | ${fmt(many[mid]!)}, ${ratios[mid]!.toFixed(2)}× (pairs: ${ratios.map((x) => x.toFixed(2)).join(", ")}; target within 5%) |`,
      `| rollback → first byte of the old version, same process (20 rollbacks) | median ${median(inProcess).toFixed(1)} ms, max ${Math.max(...inProcess).toFixed(1)} ms |`,
    );
    console.error(rows.slice(-3).join("\n"));
  } finally {
    await app.stop();
  }

  if (process.env.BENCH_SKIP_PG === "1") return;
  // Two processes on one PostgreSQL: the rollback goes to one, the reader asks the other.
  const pg = await startPgServer();
  const vars = { DATABASE_URL: pg.url };
  // One data directory: the bytes are on its disk (shared storage), the rows in PostgreSQL.
  const shared = path.join(work, "data-versions-pg");
  const [pgKey] = await makeAccounts(shared, 1, vars);
  const a = await startApp(shared, vars);
  const b = await startApp(shared, vars);
  try {
    const v1 = await deployNamed(a.port, pgKey!, "two-processes", pageOf(1));
    const v2 = await deployNamed(a.port, pgKey!, "two-processes", pageOf(2));
    const pages = [new TextDecoder().decode(pageOf(1)), new TextDecoder().decode(pageOf(2))];
    // B has the drop's manifest in its cache before each rollback, as a busy server would.
    const across: number[] = [];
    const same: number[] = [];
    for (let i = 0; i < 5; i++) {
      await http(b.port, `${v1.slug}.localhost:${b.port}`, "/index.html");
      across.push(await rollbackToFirstByte(a.port, b.port, pgKey!, v1.slug, 1, pages[0]!));
      await http(b.port, `${v1.slug}.localhost:${b.port}`, "/index.html");
      across.push(await rollbackToFirstByte(a.port, b.port, pgKey!, v1.slug, v2.version, pages[1]!));
      same.push(await rollbackToFirstByte(a.port, a.port, pgKey!, v1.slug, 1, pages[0]!));
      same.push(await rollbackToFirstByte(a.port, a.port, pgKey!, v1.slug, v2.version, pages[1]!));
    }
    rows.push(
      `| rollback → first byte, PostgreSQL, same process (10 rollbacks) | median ${median(same).toFixed(1)} ms, max ${Math.max(...same).toFixed(1)} ms |`,
      `| rollback → first byte, PostgreSQL, read from a second process (10 rollbacks) | median ${median(across).toFixed(1)} ms, max ${Math.max(...across).toFixed(1)} ms |`,
    );
    console.error(rows.slice(-2).join("\n"));
  } finally {
    await a.stop();
    await b.stop();
    await pg.stop();
  }
}

// --- deploys -----------------------------------------------------------------------------------

const MB = 1024 * 1024;
const mb = (n: number) => `${(n / MB).toFixed(1)} MB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** Deterministic text (a small vocabulary, compresses like prose or code) of about `size` bytes. */
function prose(size: number, seed: number): Uint8Array {
  const words = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua function return const".split(" ");
  let x = seed || 1;
  const rnd = () => (x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const parts: string[] = [];
  let n = 0;
  while (n < size) {
    const w = `${words[Math.floor(rnd() * words.length)]}${rnd() < 0.3 ? Math.floor(rnd() * 1e6) : ""}${rnd() < 0.1 ? "\n" : " "}`;
    parts.push(w);
    n += w.length;
  }
  return new TextEncoder().encode(parts.join("").slice(0, size));
}

/** Accounts on a plan with live keys, made in the app's embedded store before the app starts. */
async function makeAccounts(dataDir: string, count: number, vars: Record<string, string> = {}, plan: "pro" | "team" = "pro"): Promise<string[]> {
  const ctx = await createContext(parseEnv({ ...vars, DATA_DIR: dataDir, BASE_URL: "http://localhost:3000", SERVE_DOMAIN: "localhost:3000", NODE_ENV: "production" }));
  try {
    const keys: string[] = [];
    for (let i = 0; i < count; i++) keys.push((await accountWithKey(ctx, plan)).apiKey);
    return keys;
  } finally {
    await ctx.dbHandle.close();
  }
}

function procStatus(pid: number, field: "VmRSS" | "VmHWM"): number {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? NaN) * 1024;
}

/** Sends a body and times the answer (first byte sent to last byte received). */
function post(port: number, pathname: string, body: Uint8Array, headers: Record<string, string>): Promise<{ status: number; body: string; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: pathname, method: "POST", headers: { host: `localhost:${port}`, "content-length": String(body.byteLength), ...headers } }, (res) => {
      let data = "";
      res.on("data", (c) => (data += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data, ms: performance.now() - t0 }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * (a) A 900-file archive of about 25 MB (a third random binary stored as is, two thirds text
 * deflated, as `zip -r` makes them) deployed to the built app, against `unzip -q` of the same
 * archive to a folder on the same disk. The server's peak resident memory during each deploy
 * is read from /proc (VmHWM, reset before each deploy through clear_refs; polled VmRSS where
 * that is not allowed) and set against its resident memory just before.
 */
async function zipSection(work: string, rows: string[]) {
  const tree: Zippable = {};
  for (let i = 0; i < 900; i++) {
    const dir = `site/d${i % 30}`;
    if (i % 3 === 0) tree[`${dir}/b${i}.bin`] = [new Uint8Array(randomBytes(64 * 1024)), { level: 0 }];
    else tree[`${dir}/t${i}.txt`] = [prose(60 * 1024, i + 1), { level: 6 }];
  }
  const archive = zipSync(tree);
  const unpacked = Object.values(tree).reduce((n, v) => n + (v as [Uint8Array, unknown])[0].byteLength, 0);
  const zipPath = path.join(work, "site.zip");
  await writeFile(zipPath, archive);
  const unzip = async (i: number) => {
    const out = path.join(work, `unzipped-${i}`);
    const t0 = performance.now();
    await run("unzip", ["-q", zipPath, "-d", out]);
    const ms = performance.now() - t0;
    await rm(out, { recursive: true, force: true });
    return ms;
  };
  const runs = Number(process.env.BENCH_ZIP_RUNS ?? "5");
  const small: Zippable = {};
  for (let i = 0; i < 40; i++) small[`warm/f${i}.txt`] = prose(4096, 500 + i);
  const warmZip = zipSync(small);
  const list = (xs: number[], digits = 0) => xs.map((x) => x.toFixed(digits)).join(", ");
  rows.push("", `Zip deploy: ${Object.keys(tree).length} files, archive ${mb(archive.byteLength)}, unpacked ${mb(unpacked)}; ${runs} paired runs per store (an unzip, then a deploy to a fresh account in a fresh server process warmed up by a 40-file zip deploy); medians`, "");
  rows.push("| measurement | result | target |", "|---|---|---|");
  // The embedded default (PGlite runs in the server's own process, so its memory is counted too),
  // then PostgreSQL in a process of its own: the server's growth without an embedded database.
  // S3 (s3rver on loopback): the archive goes by reference, as the CLI and the browser page send
  // a zip over 4 MB (preflight, PUT straight to the bucket, deploy {"zip": …}); timed end to end.
  const stores: { name: string; vars: () => Promise<Record<string, string>>; byReference?: boolean }[] = [{ name: "PGlite + filesystem", vars: async () => ({}) }];
  let pg: PgServer | undefined;
  let s3: S3Server | undefined;
  if (process.env.BENCH_SKIP_PG !== "1") stores.push({ name: "PostgreSQL + filesystem", vars: async () => ({ DATABASE_URL: (pg ??= await startPgServer()).url }) });
  if (process.env.BENCH_SKIP_S3 !== "1") stores.push({ name: "PGlite + S3 (s3rver), zip by reference", vars: async () => (s3 ??= await startS3Server()).vars, byReference: true });
  try {
    for (const [s, store] of stores.entries()) {
      const vars = await store.vars();
      const dataDir = path.join(work, `data-zip-${s}`);
      const keys = await makeAccounts(dataDir, 2 * runs, vars);
      const unzipMs: number[] = [];
      const deployMs: number[] = [];
      const ratios: number[] = [];
      const growth: number[] = [];
      // Paired runs (an unzip, then a deploy) so both see the same load on a shared machine. Each
      // deploy runs in a fresh server process, warmed up by a small zip deploy (the code paths are
      // loaded), so its memory growth is the archive's and not a previous deploy's heap.
      for (let i = 0; i < runs; i++) {
        const app = await startApp(dataDir, vars);
        const pid = app.proc.pid!;
        try {
          const warm = await post(app.port, "/deploy", warmZip, { "content-type": "application/zip", authorization: `Bearer ${keys[2 * i]}` });
          if (warm.status !== 200) throw new Error(`warm-up deploy failed: ${warm.status} ${warm.body}`);
          const u = await unzip(i);
          const before = procStatus(pid, "VmRSS");
          let resetPeak = true;
          try {
            writeFileSync(`/proc/${pid}/clear_refs`, "5");
          } catch {
            resetPeak = false;
          }
          let polled = before;
          const poll = setInterval(() => (polled = Math.max(polled, procStatus(pid, "VmRSS"))), 5);
          // A fresh account: every content is stored (nothing deduplicated).
          const res = store.byReference ? await deployZipByReference(app.port, archive, keys[2 * i + 1]!) : await post(app.port, "/deploy", archive, { "content-type": "application/zip", authorization: `Bearer ${keys[2 * i + 1]}` });
          clearInterval(poll);
          if (res.status !== 200) throw new Error(`zip deploy failed: ${res.status} ${res.body}`);
          const peak = Math.max(polled, resetPeak ? procStatus(pid, "VmHWM") : 0);
          console.error(`${store.name} pair ${i}: unzip ${u.toFixed(0)} ms, deploy ${res.ms.toFixed(0)} ms, peak RSS +${mb(peak - before)} (before ${mb(before)})`);
          unzipMs.push(u);
          deployMs.push(res.ms);
          ratios.push(res.ms / u);
          growth.push(peak - before);
        } finally {
          await app.stop();
        }
      }
      const g = Math.max(...growth);
      rows.push(`| ${store.name}: \`unzip -q\` to a folder | ${median(unzipMs).toFixed(0)} ms (${list(unzipMs)}) | |`);
      rows.push(`| ${store.name}: ${store.byReference ? "preflight, PUT to the bucket, POST /deploy {zip} (pro key)" : "POST /deploy (application/zip, pro key)"} | ${median(deployMs).toFixed(0)} ms (${list(deployMs)}) | |`);
      rows.push(`| ${store.name}: deploy ÷ unzip, per pair | ${median(ratios).toFixed(2)}× (${list(ratios, 2)}) | ≤ 2× |`);
      rows.push(`| ${store.name}: server peak RSS growth during a deploy (largest of ${growth.length}) | ${mb(g)} = ${(g / archive.byteLength).toFixed(2)}× the archive (${growth.map((x) => (x / archive.byteLength).toFixed(2)).join(", ")}) | < 2× |`);
    }
  } finally {
    await pg?.stop();
    await s3?.close();
  }
}

/** A zip deploy by reference, as the CLI sends one: hash, preflight, PUT to the target, deploy; timed from the hash to the answer. */
async function deployZipByReference(port: number, archive: Uint8Array, key: string): Promise<{ status: number; body: string; ms: number }> {
  const t0 = performance.now();
  const ref = JSON.stringify({ zip: { sha256: createHash("sha256").update(archive).digest("hex"), size: archive.byteLength } });
  const auth = { "content-type": "application/json", authorization: `Bearer ${key}` };
  const pre = await post(port, "/deploy/preflight", Buffer.from(ref), auth);
  if (pre.status !== 200) return pre;
  const answer = JSON.parse(pre.body) as { upload_token: string; uploads: Array<{ url: string; method: string; headers: Record<string, string> }> };
  for (const u of answer.uploads) {
    const put = await fetch(u.url, { method: u.method, headers: u.headers, body: archive as BodyInit });
    if (put.status >= 300) return { status: put.status, body: await put.text(), ms: performance.now() - t0 };
  }
  const res = await post(port, "/deploy", Buffer.from(ref), { ...auth, "x-upload-token": answer.upload_token });
  return { ...res, ms: performance.now() - t0 };
}

/** A TCP relay that counts the bytes a client sends (requests, headers and bodies). */
async function countingProxy(target: number): Promise<{ port: number; sent: () => number; reset: () => void; close: () => Promise<void> }> {
  let sent = 0;
  const server = createTcpServer((client) => {
    const upstream = connect(target, "127.0.0.1");
    client.on("data", (d) => (sent += d.byteLength));
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end);
    upstream.on("error", end);
    client.on("close", end);
    upstream.on("close", end);
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return { port, sent: () => sent, reset: () => void (sent = 0), close: () => new Promise((r) => server.close(() => r())) };
}

/**
 * (b) A 500-file site (3.9 MB: pages, scripts, styles, images) deployed as a named drop by the
 * CLI (cli/dist/dropsite.mjs: hash, preflight, upload what is missing, deploy by reference),
 * then redeployed with 3 files changed; against a full deploy of the same site (the CLI's first
 * deploy, every content uploaded) and a zip of the whole site (what every redeploy sent before
 * contents were addressed by hash). Bytes are counted on the wire by a relay in front of the app
 * (the app's BASE_URL points at it, so upload targets go through it too).
 */
async function redeploySection(work: string, rows: string[]) {
  const siteDir = path.join(work, "site-500");
  const files = new Map<string, Uint8Array>();
  for (let i = 0; i < 500; i++) {
    const kind = i % 5;
    const rel = kind === 0 ? `pages/p${i}.html` : kind === 1 ? `js/m${i}.js` : kind === 2 ? `css/s${i}.css` : `img/i${i}.png`;
    files.set(rel, kind >= 3 ? new Uint8Array(randomBytes(10 * 1024)) : prose(6 * 1024, i + 7));
  }
  files.set("index.html", prose(4 * 1024, 999));
  files.delete("pages/p0.html");
  for (const [rel, bytes] of files) {
    await mkdir(path.dirname(path.join(siteDir, rel)), { recursive: true });
    await writeFile(path.join(siteDir, rel), bytes);
  }
  const total = [...files.values()].reduce((n, b) => n + b.byteLength, 0);
  const dataDir = path.join(work, "data-redeploy");
  const [key, zipKey] = await makeAccounts(dataDir, 2);
  const appPort = await freePort();
  const relay = await countingProxy(appPort);
  const app = await startApp(dataDir, { BASE_URL: `http://localhost:${relay.port}`, SERVE_DOMAIN: `localhost:${relay.port}` }, appPort);
  const cli = async (args: string[]) => {
    relay.reset();
    const t0 = performance.now();
    const out = await run(process.execPath, [path.join(ROOT, "cli/dist/dropsite.mjs"), ...args], {
      env: { PATH: process.env.PATH ?? "", NODE_ENV: "production", HOME: work, XDG_CONFIG_HOME: path.join(work, "cli-config"), DROP_API_URL: `http://localhost:${relay.port}`, DROP_API_KEY: key! },
    });
    return { ms: performance.now() - t0, sent: relay.sent(), stderr: out.stderr };
  };
  try {
    const full = await cli(["deploy", siteDir, "--name", "bench-site", "--json"]);
    const changed = ["index.html", "js/m1.js", "css/s2.css"];
    for (const rel of changed) await writeFile(path.join(siteDir, rel), prose(files.get(rel)!.byteLength, 4242));
    const again = await cli(["deploy", siteDir, "--name", "bench-site", "--json"]);
    const unchanged = /(\d+) of (\d+) files? unchanged/.exec(again.stderr)?.[0] ?? "?";
    // The old way: the whole site as one zip, every byte again.
    const tree: Zippable = {};
    for (const rel of files.keys()) tree[rel] = new Uint8Array(await readFile(path.join(siteDir, rel)));
    const archive = zipSync(tree, { level: 6 });
    relay.reset();
    const z = await post(relay.port, "/deploy?name=bench-zip", archive, { "content-type": "application/zip", authorization: `Bearer ${zipKey}` });
    if (z.status !== 200) throw new Error(`zip deploy failed: ${z.status} ${z.body}`);
    const zipSent = relay.sent();
    rows.push("", `Redeploy: ${files.size} files (${mb(total)}), 3 changed; the CLI's preflight flow (wall time of the CLI process, bytes on the wire client → app)`, "");
    rows.push("| deploy | bytes sent | time |", "|---|---|---|");
    rows.push(`| CLI, first deploy (all ${files.size} contents sent: small ones inline in the deploy, the rest uploaded) | ${full.sent.toLocaleString("en-US")} | ${full.ms.toFixed(0)} ms |`);
    rows.push(`| CLI, redeploy with 3 changed files (${unchanged}) | ${again.sent.toLocaleString("en-US")} (${((again.sent / full.sent) * 100).toFixed(1)}% of the full deploy) | ${again.ms.toFixed(0)} ms (${(again.ms / full.ms).toFixed(2)}×) |`);
    rows.push(`| the whole site as one zip (every redeploy before content addressing) | ${zipSent.toLocaleString("en-US")} | ${z.ms.toFixed(0)} ms (request only) |`);
  } finally {
    await app.stop();
    await relay.close();
  }
}

async function main() {
  if (!existsSync(path.join(ROOT, ".next", "dropsite", "data-plane.mjs"))) throw new Error("run `npm run build` first");
  const work = await mkdtemp(path.join(tmpdir(), "dropsite-bench-"));
  const rows: string[] = [];
  const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");
  const loadBefore = load();
  try {
    await serveSections(work, rows);
    if (want("versions")) await versionsSection(work, rows);
    if (want("zip")) await zipSection(work, rows);
    if (want("redeploy")) await redeploySection(work, rows);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}`);
  console.log(`Load average before: ${loadBefore}; after: ${load()}\n`);
  console.log(rows.join("\n"));
}

await main();
