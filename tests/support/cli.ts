import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { runProgram, type RunResult } from "./run";

// The command-line client as a person runs it (cli/dist/dropsite.mjs, built by
// scripts/build-cli.mjs), and a suite's route modules served on a loopback port for it to call.

export const CLI = path.resolve(import.meta.dirname, "../../cli/dist/dropsite.mjs");

/** Runs the built CLI in `work` with a clean environment (its own HOME and config folder) against `api`, with `key` as DROP_API_KEY when given. */
export function runCli(work: string, api: string, args: string[], key?: string): Promise<RunResult> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "",
    HOME: work,
    NODE_ENV: "production",
    XDG_CONFIG_HOME: path.join(work, "config"),
    DROP_API_URL: api,
  };
  if (key !== undefined) env.DROP_API_KEY = key;
  return runProgram(process.execPath, [CLI, ...args], { cwd: work, env });
}

/** A route table: the request (its client address already set) → the route module's answer, or null for a 404. */
export type Routes = (request: Request, url: URL) => Promise<Response | null>;

export interface CliSuite {
  /** The loopback origin the routes answer on. */
  readonly api: string;
  /** A temporary folder: the CLI's working directory and home. */
  readonly work: string;
  cli: (args: string[], key?: string) => Promise<RunResult>;
}

/**
 * For the suite (beforeAll/afterAll): `routes` on a loopback port, every request arriving from
 * `socketIp` (the header only the listener sets), and a temporary working folder for the CLI.
 */
export function cliAgainstRoutes(socketIp: string, routes: Routes): CliSuite {
  let server: Server | undefined;
  let api = "";
  let work = "";
  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), "dropsite-cli-"));
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        void (async () => {
          const url = new URL(req.url ?? "/", api);
          const headers = new Headers();
          for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
          headers.set("x-dropsite-socket-ip", socketIp);
          const body = chunks.length && req.method !== "GET" ? Buffer.concat(chunks) : undefined;
          const answer =
            (await routes(new Request(url, { method: req.method, headers, body }), url)) ??
            new Response("{}", { status: 404 });
          res.writeHead(answer.status, Object.fromEntries(answer.headers));
          res.end(Buffer.from(await answer.arrayBuffer()));
        })();
      });
    });
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    if (work) await rm(work, { recursive: true, force: true });
  });
  return {
    get api() {
      return api;
    },
    get work() {
      return work;
    },
    cli: (args, key) => runCli(work, api, args, key),
  };
}
