import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { freePort } from "./net";

// `next start` of the built app: the process the Vercel path runs (no server.mjs, no data
// plane in front), on a spare loopback port.

const ROOT = path.resolve(import.meta.dirname, "../..");

export interface NextStart {
  proc: ChildProcess;
  /** http://127.0.0.1:<port> */
  base: string;
  stop(): Promise<void>;
}

/**
 * Starts `next start` with BASE_URL and SERVE_DOMAIN on its port and `vars`; its output goes to
 * `onOutput`. Answers once GET /limits does (a minute at most).
 */
export async function startNext(vars: Record<string, string>, onOutput: (text: string) => void): Promise<NextStart> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let out = "";
  const proc = spawn(
    process.execPath,
    [path.join(ROOT, "node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1"],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: "production",
        BASE_URL: `http://localhost:${port}`,
        SERVE_DOMAIN: `localhost:${port}`,
        ...vars,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const take = (d: Buffer) => {
    out += d.toString();
    onOutput(d.toString());
  };
  proc.stdout?.on("data", take);
  proc.stderr?.on("data", take);
  const stop = async () => {
    if (proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once("exit", r));
    proc.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (proc.exitCode === null) proc.kill("SIGKILL");
  };
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`next start exited:\n${out}`);
    const up = await fetch(`${base}/limits`).catch(() => undefined);
    if (up?.status === 200) break;
    if (i > 240) {
      await stop();
      throw new Error(`next start did not answer:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { proc, base, stop };
}
