import { execFile, spawn, type ChildProcess } from "node:child_process";
import { closeSync, createWriteStream, openSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

// Starts the built app (`node server.mjs`, the README's start path after `next build`) on a
// spare loopback port with its own data dir, and stops it by pid.

import { freePort } from "./net";
import { logFileFor, registerResponseSecrets, registerSecretVars } from "./secrets";

export { freePort };

export interface RunningApp {
  port: number;
  baseUrl: string;
  serveDomain: string;
  dataDir: string;
  proc: ChildProcess;
  output: () => string;
  /** The variables and options it was started with. */
  started: { vars: Record<string, string>; opts: StartOptions };
  /** An HTTP request with an explicit Host header (fetch cannot set Host). */
  request(host: string, pathname: string, opts?: RequestOptions): Promise<HttpResult>;
  stop(): Promise<void>;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  json: () => unknown;
}

export interface StartOptions {
  /** Listen on this port (default: a spare one). */
  port?: number;
  /** Reuse a data dir (default: a new temp dir, removed on stop). */
  dataDir?: string;
  /** The app's folder (default: this checkout); a production install lives elsewhere. */
  cwd?: string;
  /**
   * Send the app's stdout (the request log, one line per request) to this file instead of keeping
   * it in memory for output(): a load run (npm run bench) would otherwise hold every line.
   * "/dev/null" drops it.
   */
  stdoutFile?: string;
  /** Start this many workers (WEB_CONCURRENCY) and wait until each one says it is ready. */
  workers?: number;
  /** Where a port to try comes from when `port` is not given (the harness's own test). */
  nextPort?: () => Promise<number>;
  /** Flags for the node process, e.g. ["--cpu-prof"]. */
  nodeArgs?: string[];
}

const READY_LINE = /> dropsite ready on/g;

/** An HTTP request to a loopback port with an explicit Host header (fetch cannot set Host). */
export function requestAt(
  port: number,
  host: string,
  pathname: string,
  opts: RequestOptions = {},
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path: pathname,
        method: opts.method ?? "GET",
        headers: { host, ...(opts.headers ?? {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const body = Buffer.concat(chunks);
          const text = body.toString("utf8");
          registerResponseSecrets(res.headers, text);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, json: () => JSON.parse(text) });
        });
      },
    );
    req.on("error", reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/**
 * Starts the built app on a free port. A port found free can be taken by another process before
 * the app listens on it (the app's URLs name the port, so it cannot listen on port 0): when the
 * app then exits with EADDRINUSE, it is started again on another port. Readiness is the app's own
 * "ready" line, so a server that took the port first is never mistaken for it.
 */
export async function startApp(vars: Record<string, string> = {}, opts: StartOptions = {}): Promise<RunningApp> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts.port ?? (await (opts.nextPort ?? freePort)()), vars, opts);
    } catch (err) {
      const taken = err instanceof PortTakenError;
      if (!taken || opts.port !== undefined || attempt >= 5) throw err;
    }
  }
}

class PortTakenError extends Error {}

async function startOnce(port: number, vars: Record<string, string>, opts: StartOptions): Promise<RunningApp> {
  const ownDataDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? (await mkdtemp(path.join(tmpdir(), "dropsite-app-")));
  const baseUrl = `http://localhost:${port}`;
  const serveDomain = vars.SERVE_DOMAIN ?? `localhost:${port}`;
  let out = "";
  const workers = opts.workers !== undefined ? { WEB_CONCURRENCY: String(opts.workers) } : {};
  const stdoutFd = opts.stdoutFile !== undefined ? openSync(opts.stdoutFile, "w") : undefined;
  const proc = spawn(process.execPath, ["--expose-gc", ...(opts.nodeArgs ?? []), "server.mjs"], {
    cwd: opts.cwd ?? path.resolve(import.meta.dirname, "../.."),
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: baseUrl,
      SERVE_DOMAIN: serveDomain,
      DATA_DIR: dataDir,
      ...workers,
      ...vars,
    },
    stdio: ["ignore", stdoutFd ?? "pipe", "pipe"],
  });
  if (stdoutFd !== undefined) closeSync(stdoutFd);
  proc.stdout?.on("data", (d) => (out += d));
  proc.stderr?.on("data", (d) => (out += d));
  const output = () => (opts.stdoutFile !== undefined ? readFileSync(opts.stdoutFile, "utf8") : "") + out;
  // The app's own ready line, where its standard output can be read (the bench sends it to
  // /dev/null: there, as before, the first 200 is taken as the app's).
  const ready = () =>
    opts.stdoutFile === "/dev/null" || (output().match(READY_LINE)?.length ?? 0) >= (opts.workers ?? 1);
  // The log also goes to this test run's log directory, where the secrets check reads it.
  registerSecretVars(vars);
  const logFile = logFileFor(`app-${port}-${proc.pid}`);
  if (logFile) {
    const sink = createWriteStream(logFile, { flags: "a" });
    proc.stdout?.pipe(sink, { end: false });
    proc.stderr?.pipe(sink, { end: false });
    proc.once("close", () => sink.end());
  }
  const request: RunningApp["request"] = (host, pathname, opts) => requestAt(port, host, pathname, opts);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) {
      if (output().includes("EADDRINUSE")) throw new PortTakenError(`port ${port} was taken:\n${output()}`);
      throw new Error(`app exited early:\n${output()}`);
    }
    try {
      const r = await request(`localhost:${port}`, "/");
      if (r.status === 200 && ready()) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`app did not start within 60 s:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    port,
    baseUrl,
    serveDomain,
    dataDir,
    proc,
    output,
    started: { vars, opts },
    request,
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once("exit", r));
        proc.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (proc.exitCode === null) proc.kill("SIGKILL");
      }
      if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Grants an account a plan with `npm run admin -- set-plan` (no Stripe). The embedded PGlite
 * store is single-process, so the app is stopped for it and started again on the same port, data
 * dir and variables; it must have been started with a data dir of the caller's (stop removes its
 * own).
 */
export async function grantPlan(app: RunningApp, email: string, plan: "free" | "pro" | "team"): Promise<RunningApp> {
  if (app.started.opts.dataDir === undefined) throw new Error("grantPlan: start the app with a data dir of your own");
  await app.stop();
  const root = app.started.opts.cwd ?? path.resolve(import.meta.dirname, "../..");
  const { stdout } = await promisify(execFile)(
    path.join(root, "node_modules/.bin/tsx"),
    ["scripts/admin.ts", "set-plan", email, plan],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? "",
        HOME: app.dataDir,
        DATA_DIR: app.dataDir,
        NODE_ENV: "production",
        BASE_URL: app.baseUrl,
        SERVE_DOMAIN: app.serveDomain,
        ...app.started.vars,
      },
    },
  );
  if (!stdout.includes(`→ ${plan}`)) throw new Error(`set-plan ${email} ${plan} said: ${stdout}`);
  return startApp(app.started.vars, { ...app.started.opts, port: app.port });
}
