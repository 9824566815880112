// The built app as the bench uses it: started by the tests' starter (tests/support/app-server.ts),
// accounts made in its store before it starts, and the deploys every section needs.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startApp, requestAt, type HttpResult, type RunningApp } from "../tests/support/app-server";
import { accountWithKey } from "../tests/support/accounts";
import { createContext } from "../lib/context";
import { parseEnv } from "../lib/env";

export type Site = Record<string, Uint8Array>;

export interface BenchAppOptions {
  /** Listen on this port (default: a spare one). */
  port?: number;
  /** WEB_CONCURRENCY: the start waits for every worker's ready line (the request log then goes to a file beside the data dir). */
  workers?: number;
}

/**
 * `node server.mjs` on `dataDir` (kept: accounts are made there first), as the tests start it,
 * with deploys unthrottled, the request log dropped (it would cost the bench's process, not the
 * app's; BENCH_STDOUT names a file to keep it in instead), and BENCH_NODE_ARGS passed to node
 * (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", or "--trace-gc" with BENCH_STDOUT).
 */
export function startBenchApp(
  dataDir: string,
  vars: Record<string, string> = {},
  opts: BenchAppOptions = {},
): Promise<RunningApp> {
  return startApp(
    { RATE_LIMIT_DEPLOYS_PER_MINUTE: "100000", ...vars },
    {
      dataDir,
      port: opts.port,
      workers: opts.workers,
      stdoutFile: opts.workers === undefined ? (process.env.BENCH_STDOUT ?? "/dev/null") : `${dataDir}.stdout.log`,
      nodeArgs: (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean),
    },
  );
}

/** The app's own host (not a drop's). */
export const appHost = (app: RunningApp) => `localhost:${app.port}`;

/** A drop's host on this app. */
export const dropHost = (app: RunningApp, slug: string) => `${slug}.${app.serveDomain}`;

/** Accounts on a plan with live keys, made in the app's embedded store before the app starts. */
export async function makeAccounts(
  dataDir: string,
  count: number,
  vars: Record<string, string> = {},
  plan: "pro" | "team" = "pro",
): Promise<string[]> {
  const ctx = await createContext(
    parseEnv({
      ...vars,
      DATA_DIR: dataDir,
      BASE_URL: "http://localhost:3000",
      SERVE_DOMAIN: "localhost:3000",
      NODE_ENV: "production",
    }),
  );
  try {
    const keys: string[] = [];
    for (let i = 0; i < count; i++) keys.push((await accountWithKey(ctx, plan)).apiKey);
    return keys;
  } finally {
    await ctx.dbHandle.close();
  }
}

const json = (key?: string): Record<string, string> => ({
  "content-type": "application/json",
  ...(key ? { authorization: `Bearer ${key}` } : {}),
});

function expectStatus(res: HttpResult, status: number, what: string): HttpResult {
  if (res.status !== status) throw new Error(`${what} failed: ${res.status} ${res.text}`);
  return res;
}

/** The JSON deploy body's file map: every file as base64. */
export function fileMap(site: Site): Record<string, { encoding: "base64"; content: string }> {
  return Object.fromEntries(
    Object.entries(site).map(([p, b]) => [p, { encoding: "base64", content: Buffer.from(b).toString("base64") }]),
  );
}

/** Deploys `site` (anonymously, or to the key's account; as the named drop `name`, replacing it). */
export async function deploy(
  app: RunningApp,
  site: Site,
  opts: { key?: string; name?: string } = {},
): Promise<{ slug: string; version: number }> {
  const pathname = opts.name ? `/deploy?name=${opts.name}` : "/deploy";
  const res = await app.request(appHost(app), pathname, {
    method: "POST",
    headers: json(opts.key),
    body: JSON.stringify({ files: fileMap(site) }),
  });
  return expectStatus(res, 200, "deploy").json() as { slug: string; version: number };
}

/** Protects the key's drop with a password; returns the cookie its unlock form sets. */
export async function protect(app: RunningApp, slug: string, key: string): Promise<string> {
  const password = "bench password";
  const access = await app.request(appHost(app), `/drops/${slug}/access`, {
    method: "PUT",
    headers: json(key),
    body: JSON.stringify({ mode: "password", password }),
  });
  expectStatus(access, 200, "protect");
  const form = new URLSearchParams({ password, path: "/" }).toString();
  const unlock = await app.request(dropHost(app, slug), "/.well-known/dropsite/unlock", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form,
  });
  const set = unlock.headers["set-cookie"];
  const cookie = (Array.isArray(set) ? String(set[0]) : "").split(";")[0];
  if (unlock.status !== 303 || !cookie) throw new Error(`unlock failed: ${unlock.status}`);
  return cookie;
}

/** A POST to the app's host, timed from the first byte sent to the last byte received. */
export async function timedPost(
  port: number,
  pathname: string,
  body: Uint8Array,
  headers: Record<string, string>,
): Promise<HttpResult & { ms: number }> {
  const t0 = performance.now();
  const res = await requestAt(port, `localhost:${port}`, pathname, {
    method: "POST",
    headers: { "content-length": String(body.byteLength), ...headers },
    body,
  });
  return { ...res, ms: performance.now() - t0 };
}

/** CPU time (user and system) a process, and its main thread, have used so far, in ms (from /proc: clock ticks of 10 ms). */
export function cpuTimes(pid: number): { all: number; main: number } {
  const ticks = (file: string) => {
    const fields = readFileSync(file, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  return { all: ticks(`/proc/${pid}/stat`), main: ticks(`/proc/${pid}/task/${pid}/stat`) };
}

/** A field of /proc/<pid>/status, in bytes. */
export function procStatus(pid: number, field: "VmRSS" | "VmHWM"): number {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? NaN) * 1024;
}

/** Watches a process's resident memory from now on: its peak above the level now, when stopped. */
export function watchPeak(pid: number): () => { before: number; growth: number } {
  const before = procStatus(pid, "VmRSS");
  let resetPeak = true;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
  } catch {
    resetPeak = false;
  }
  let polled = before;
  const poll = setInterval(() => (polled = Math.max(polled, procStatus(pid, "VmRSS"))), 5);
  return () => {
    clearInterval(poll);
    return { before, growth: Math.max(polled, resetPeak ? procStatus(pid, "VmHWM") : 0) - before };
  };
}

export const ROOT = path.resolve(import.meta.dirname, "..");
