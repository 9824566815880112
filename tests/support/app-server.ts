import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";

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
  /** An HTTP request with an explicit Host header (fetch cannot set Host). */
  request(host: string, pathname: string, opts?: { method?: string; headers?: Record<string, string>; body?: Uint8Array | string }): Promise<HttpResult>;
  stop(): Promise<void>;
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
}

export async function startApp(vars: Record<string, string> = {}, opts: StartOptions = {}): Promise<RunningApp> {
  const port = opts.port ?? (await freePort());
  const ownDataDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? (await mkdtemp(path.join(tmpdir(), "dropsite-app-")));
  const baseUrl = `http://localhost:${port}`;
  const serveDomain = vars.SERVE_DOMAIN ?? `localhost:${port}`;
  let out = "";
  const proc = spawn(process.execPath, ["--expose-gc", "server.mjs"], {
    cwd: opts.cwd ?? path.resolve(import.meta.dirname, "../.."),
    env: { ...process.env, NODE_ENV: "production", PORT: String(port), HOST: "127.0.0.1", BASE_URL: baseUrl, SERVE_DOMAIN: serveDomain, DATA_DIR: dataDir, ...vars },
    stdio: ["ignore", "pipe", "pipe"],
  });
  proc.stdout?.on("data", (d) => (out += d));
  proc.stderr?.on("data", (d) => (out += d));
  // The log also goes to this test run's log directory, where the secrets check reads it.
  registerSecretVars(vars);
  const logFile = logFileFor(`app-${port}-${proc.pid}`);
  if (logFile) {
    const sink = createWriteStream(logFile, { flags: "a" });
    proc.stdout?.pipe(sink, { end: false });
    proc.stderr?.pipe(sink, { end: false });
    proc.once("close", () => sink.end());
  }
  const request: RunningApp["request"] = (host, pathname, opts = {}) =>
    new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: "127.0.0.1", port, path: pathname, method: opts.method ?? "GET", headers: { host, ...(opts.headers ?? {}) } },
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
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`app exited early:\n${out}`);
    try {
      const r = await request(`localhost:${port}`, "/");
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`app did not start within 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    port,
    baseUrl,
    serveDomain,
    dataDir,
    proc,
    output: () => out,
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
