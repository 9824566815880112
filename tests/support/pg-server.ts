import { execFile } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";

// A real PostgreSQL 15 server for integration tests: initdb into a temp dir, pg_ctl start on a
// spare loopback port, stop by pg_ctl (falling back to the pid file) and remove the dir.
// The server binaries refuse to run as root, so as root every command runs as `postgres`.

const run = promisify(execFile);

export const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";
const PASSWORD = "dropsite-test";

export interface PgServer {
  /** postgres:// URL of the database created at start. */
  url: string;
  port: number;
  /** Creates another database on the same server and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server as a crash would (immediate shutdown), keeping its data dir and port. */
  halt(): Promise<void>;
  /** Starts a halted server again on the same data dir and port. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

export class MissingBinaryError extends Error {
  constructor(what: string, hint: string) {
    super(`${what} not found. ${hint}`);
    this.name = "MissingBinaryError";
  }
}

/** True when the server binaries are on this machine (for callers that prefer to skip). */
export function pgBinariesAvailable(): boolean {
  return ["initdb", "pg_ctl", "postgres"].every((b) => existsSync(path.join(PG_BIN, b)));
}

import { freePort } from "./net";

export { freePort };

export interface PgServerOptions {
  database?: string;
  /**
   * Keep every acknowledged commit across a crash of the server (synchronous_commit on). The
   * default trades that for speed, which is fine unless a test stops the server mid-run.
   */
  durable?: boolean;
}

export async function startPgServer(opts: PgServerOptions = {}): Promise<PgServer> {
  if (!pgBinariesAvailable()) {
    throw new MissingBinaryError(
      `PostgreSQL server binaries (initdb, pg_ctl, postgres) in ${PG_BIN}`,
      "Install the Debian package postgresql-15 or set PG_BIN to the directory holding them.",
    );
  }
  const asRoot = process.getuid?.() === 0;
  // As root: run as the postgres account, which must own the directory.
  const cmd = async (bin: string, args: string[]) => {
    const file = path.join(PG_BIN, bin);
    const { stdout } = asRoot ? await run("runuser", ["-u", "postgres", "--", file, ...args]) : await run(file, args);
    return stdout;
  };

  const dir = await mkdtemp(path.join(tmpdir(), "dropsite-pg-"));
  const dataDir = path.join(dir, "data");
  const pwFile = path.join(dir, "pwfile");
  await writeFile(pwFile, `${PASSWORD}\n`);
  if (asRoot) {
    const uid = Number((await run("id", ["-u", "postgres"])).stdout.trim());
    const gid = Number((await run("id", ["-g", "postgres"])).stdout.trim());
    await chown(dir, uid, gid);
    await chown(pwFile, uid, gid);
  }

  let pid: number | undefined;
  const killOnExit = () => {
    if (pid) {
      try {
        process.kill(pid, "SIGQUIT");
      } catch {
        /* already gone */
      }
    }
  };

  try {
    // Password auth over TCP (SCRAM, as on Neon), trust on the socket; durability off for speed
    // (fsync off always: only the server process is ever stopped, never the machine).
    await cmd("initdb", [
      "-D",
      dataDir,
      "-U",
      "postgres",
      `--pwfile=${pwFile}`,
      "--auth-host=scram-sha-256",
      "--auth-local=trust",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ]);
    let port = 0;
    const serverOpts = () =>
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=${opts.durable ? "on" : "off"} -c full_page_writes=off -c max_connections=50`;
    const pgStart = () =>
      cmd("pg_ctl", ["-D", dataDir, "-o", serverOpts(), "-l", path.join(dir, "server.log"), "-w", "-t", "60", "start"]);
    for (let attempt = 0; ; attempt++) {
      port = await freePort();
      try {
        await pgStart();
        break;
      } catch (err) {
        // Another process may have taken the port between the probe and the start: try another.
        if (attempt >= 2) throw new Error(`pg_ctl start failed: ${String(err)}\n${readLog(dir)}`, { cause: err });
      }
    }
    pid = readPid(dataDir);
    process.once("exit", killOnExit);

    const base = `postgres://postgres:${encodeURIComponent(PASSWORD)}@127.0.0.1:${port}`;
    const createDatabase = async (name: string): Promise<string> => {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name: ${name}`);
      const client = new pg.Client({ connectionString: `${base}/postgres` });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `${base}/${name}`;
    };
    const url = await createDatabase(opts.database ?? "dropsite_test");

    let stopped = false;
    return {
      url,
      port,
      createDatabase,
      async halt() {
        await cmd("pg_ctl", ["-D", dataDir, "-m", "immediate", "-w", "-t", "20", "stop"]);
      },
      async resume() {
        await pgStart();
        pid = readPid(dataDir);
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        process.removeListener("exit", killOnExit);
        try {
          await cmd("pg_ctl", ["-D", dataDir, "-m", "immediate", "-w", "-t", "20", "stop"]);
        } catch {
          // pg_ctl failed: stop the postmaster by the pid it wrote, and wait for it to go.
          if (pid) await killAndWait(pid);
        }
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    killOnExit();
    process.removeListener("exit", killOnExit);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

function readPid(dataDir: string): number | undefined {
  try {
    const first = readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0];
    const n = Number(first);
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

function readLog(dir: string): string {
  try {
    return readFileSync(path.join(dir, "server.log"), "utf8").slice(-2000);
  } catch {
    return "";
  }
}

async function killAndWait(pid: number): Promise<void> {
  try {
    process.kill(pid, "SIGQUIT");
  } catch {
    return;
  }
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    /* gone */
  }
}
