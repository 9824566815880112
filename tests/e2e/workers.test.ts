import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContext } from "@/lib/context";
import { parseEnv } from "@/lib/env";
import { MANIFEST_REVALIDATE_MS } from "@/lib/serve/cache";
import { accountWithKey } from "../support/accounts";
import { freePort, startApp, type RunningApp } from "../support/app-server";
import { startPgServer, type PgServer } from "../support/pg-server";
import { startRedisServer, type RedisServer } from "../support/upstash-standin";

// `npm start` on every core (issue 29): WEB_CONCURRENCY=N runs N workers of server.mjs on one
// port under node:cluster. A value that is not a positive whole number, or N > 1 on the embedded
// PGlite, stops the start. On PostgreSQL the workers share the drops (a change shows in every
// worker within the manifest cache's revalidation window, as across instances) and, with
// REDIS_URL, one budget per limit; SIGTERM lets requests in flight finish.

const ROOT = path.resolve(import.meta.dirname, "../..");
const DEPLOYS_PER_MINUTE = 3;

/** Runs server.mjs until it exits by itself (or 60 s pass); its exit code and output. */
async function startRefused(vars: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-refused-"));
  const port = await freePort();
  try {
    const proc = spawn(process.execPath, ["server.mjs"], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: "production",
        PORT: String(port),
        HOST: "127.0.0.1",
        BASE_URL: `http://localhost:${port}`,
        SERVE_DOMAIN: `localhost:${port}`,
        DATA_DIR: dataDir,
        ...vars,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    proc.stdout.on("data", (d) => (output += d));
    proc.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => proc.kill("SIGKILL"), 60_000);
    const code = await new Promise<number | null>((resolve) => proc.once("exit", (c) => resolve(c)));
    clearTimeout(timer);
    return { code, output };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

describe("WEB_CONCURRENCY at start", () => {
  it.each(["0", "-1", "two", "1.5", "1e1", "0x2"])(
    "%s is refused with a message naming WEB_CONCURRENCY",
    async (value) => {
      const { code, output } = await startRefused({ WEB_CONCURRENCY: value });
      expect(code).not.toBe(0);
      expect(code).not.toBeNull();
      expect(output).toMatch(/WEB_CONCURRENCY: WEB_CONCURRENCY must be a positive whole number/);
      expect(output).not.toContain("ready on");
    },
  );

  it("above 1 on the embedded PGlite stops the start with a message naming DATABASE_URL", async () => {
    const { code, output } = await startRefused({ WEB_CONCURRENCY: "2" });
    expect(code).toBe(1);
    expect(output).toMatch(/WEB_CONCURRENCY: 2 workers need a database they can share: set DATABASE_URL/);
    expect(output).not.toContain("ready on");
  });
});

/** Starts server.mjs with two workers and waits until both listen. */
async function startWorkers(
  vars: Record<string, string>,
  dataDir: string,
): Promise<{ app: RunningApp; pids: number[] }> {
  const app = await startApp(
    { WEB_CONCURRENCY: "2", RATE_LIMIT_DEPLOYS_PER_MINUTE: String(DEPLOYS_PER_MINUTE), ...vars },
    { dataDir },
  );
  const deadline = Date.now() + 90_000;
  let pids: number[] = [];
  while (Date.now() < deadline) {
    pids = [...app.output().matchAll(/> dropsite ready on \S+ \(production, worker \d+, pid (\d+)\)/g)].map((m) =>
      Number(m[1]),
    );
    if (pids.length >= 2) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  expect(pids).toHaveLength(2);
  return { app, pids };
}

/** One request on a connection of its own (the cluster hands each new connection to the next worker). */
function fresh(
  app: RunningApp,
  host: string,
  pathname: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  return app.request(host, pathname, { ...opts, headers: { connection: "close", ...opts.headers } });
}

async function anonymousDeploys(app: RunningApp, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) {
    statuses.push(
      (
        await fresh(app, `localhost:${app.port}`, "/deploy", {
          method: "POST",
          headers: { "content-type": "text/html" },
          body: `<p>deploy ${i}</p>`,
        })
      ).status,
    );
  }
  return statuses;
}

describe("two workers on PostgreSQL", () => {
  let pg: PgServer;
  let redis: RedisServer;
  let dataDir: string;
  let apiKey: string;

  beforeAll(async () => {
    [pg, redis] = await Promise.all([startPgServer(), startRedisServer()]);
    dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-workers-"));
    const setup = await createContext(parseEnv({ DATABASE_URL: pg.url, DATA_DIR: dataDir, NODE_ENV: "test" }));
    apiKey = (await accountWithKey(setup, "pro")).apiKey;
    await setup.dbHandle.close();
  }, 120_000);
  afterAll(async () => {
    await redis?.stop();
    await pg?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("without a shared store each worker counts its own budget (so both answer), and the start says so", async () => {
    const { app } = await startWorkers({ DATABASE_URL: pg.url }, dataDir);
    try {
      expect(app.output()).toContain(
        "Rate limits are counted per worker (2 workers allow 2 times each budget): set REDIS_URL to share them.",
      );
      const statuses = await anonymousDeploys(app, 2 * DEPLOYS_PER_MINUTE);
      // One process would allow DEPLOYS_PER_MINUTE; the second worker's budget lets more through.
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(DEPLOYS_PER_MINUTE);
      expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    } finally {
      await app.stop();
    }
  }, 180_000);

  it("on a database never migrated, both workers start and open it", async () => {
    const { Pool } = await import("pg");
    const admin = new Pool({ connectionString: pg.url });
    await admin.query("create database fresh_workers");
    await admin.end();
    const freshDb = new URL(pg.url);
    freshDb.pathname = "/fresh_workers";
    const freshDir = await mkdtemp(path.join(tmpdir(), "dropsite-workers-fresh-"));
    const { app } = await startWorkers({ DATABASE_URL: freshDb.toString(), REDIS_URL: redis.url }, freshDir);
    try {
      const deadline = Date.now() + 30_000;
      while ((app.output().match(/"msg":"context","db":"postgres"/g)?.length ?? 0) < 2 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
      expect(app.output().match(/"msg":"context","db":"postgres"/g)).toHaveLength(2);
      expect(app.output()).not.toContain("could not open the context");
      expect(app.output()).not.toContain("could not apply the migrations");
      expect((await fresh(app, `localhost:${app.port}`, "/limits")).status).toBe(200);
    } finally {
      await app.stop();
      await rm(freshDir, { recursive: true, force: true });
    }
  }, 180_000);

  describe("with REDIS_URL", () => {
    let app: RunningApp;
    let pids: number[];
    beforeAll(async () => {
      ({ app, pids } = await startWorkers({ DATABASE_URL: pg.url, REDIS_URL: redis.url }, dataDir));
    }, 180_000);
    afterAll(async () => {
      await app?.stop();
    });

    it("runs two worker processes on one port under one primary", () => {
      expect(new Set(pids).size).toBe(2);
      expect(pids).not.toContain(app.proc.pid);
      for (const pid of pids) expect(() => process.kill(pid, 0)).not.toThrow();
      expect(app.output()).toContain(`> dropsite starting 2 workers on http://localhost:${app.port}`);
      expect(app.output()).not.toContain("Rate limits are counted per worker");
    });

    it("the workers share one deploy budget through Redis", async () => {
      const [flushed] = redis.conn.send([[Buffer.from("FLUSHDB")]]);
      await flushed;
      // The sliding window rounds the previous minute's count down: a burst that crosses a
      // minute's end could be allowed one more. Start clear of it (the app runs on real time).
      const left = 60_000 - (Date.now() % 60_000);
      if (left < 10_000) await new Promise((r) => setTimeout(r, left + 100));
      const statuses = await anonymousDeploys(app, 2 * DEPLOYS_PER_MINUTE);
      expect(statuses).toEqual([
        ...Array<number>(DEPLOYS_PER_MINUTE).fill(200),
        ...Array<number>(DEPLOYS_PER_MINUTE).fill(429),
      ]);
    });

    it("a replace made through one worker is served by every worker within the manifest revalidation window", async () => {
      const [flushed] = redis.conn.send([[Buffer.from("FLUSHDB")]]);
      await flushed;
      const appHost = `localhost:${app.port}`;
      const auth = { authorization: `Bearer ${apiKey}`, "content-type": "text/html" };
      const first = await fresh(app, appHost, "/deploy?name=shared", {
        method: "POST",
        headers: auth,
        body: "<p>one</p>",
      });
      expect(first.status).toBe(200);
      const { slug } = first.json() as { slug: string };
      const dropHost = `${slug}.localhost:${app.port}`;
      for (let i = 0; i < 4; i++) expect((await fresh(app, dropHost, "/")).text).toBe("<p>one</p>");
      expect(
        (await fresh(app, appHost, "/deploy?name=shared", { method: "POST", headers: auth, body: "<p>two</p>" }))
          .status,
      ).toBe(200);
      await new Promise((r) => setTimeout(r, MANIFEST_REVALIDATE_MS + 300));
      const seen = [];
      for (let i = 0; i < 6; i++) seen.push((await fresh(app, dropHost, "/")).text);
      expect(seen).toEqual(Array<string>(6).fill("<p>two</p>"));
    });

    it("SIGTERM stops accepting, lets a request in flight finish, and every process exits 0", async () => {
      const [flushed] = redis.conn.send([[Buffer.from("FLUSHDB")]]);
      await flushed;
      const body = Buffer.from(`<p>${"in flight ".repeat(2000)}</p>`);
      const half = Math.floor(body.length / 2);
      let sendRest: () => void = () => undefined;
      const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = httpRequest(
          {
            host: "127.0.0.1",
            port: app.port,
            method: "POST",
            path: "/deploy",
            headers: {
              host: `localhost:${app.port}`,
              "content-type": "text/html",
              "content-length": String(body.length),
              connection: "close",
            },
          },
          (res) => {
            let text = "";
            res.on("data", (d: Buffer) => (text += d.toString()));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
          },
        );
        req.on("error", reject);
        req.write(body.subarray(0, half));
        sendRest = () => req.end(body.subarray(half));
      });
      // The request is in a worker (its first half read) when the stop comes.
      await new Promise((r) => setTimeout(r, 500));
      const exited = new Promise<number | null>((resolve) => app.proc.once("exit", (c) => resolve(c)));
      app.proc.kill("SIGTERM");
      await new Promise((r) => setTimeout(r, 1000));
      // No new connection is taken any more.
      const refused = await new Promise<boolean>((resolve) => {
        const s = connect(app.port, "127.0.0.1");
        s.once("connect", () => {
          s.destroy();
          resolve(false);
        });
        s.once("error", () => resolve(true));
      });
      expect(refused).toBe(true);
      sendRest();
      const res = await answered;
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text)).toMatchObject({ slug: expect.any(String) as string });
      expect(await exited).toBe(0);
      for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    }, 30_000);
  });
});
