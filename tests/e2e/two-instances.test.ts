import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app-server";
import { startPgServer, type PgServer } from "../support/pg-server";
import { startRedisServer, type RedisServer } from "../support/upstash-standin";
import { startS3Server, type S3Server } from "../support/s3-server";

// Several machines (issue 29), as two `npm start` processes of their own on one PostgreSQL, one
// S3 bucket (s3rver on loopback) and one Redis, each with a data directory of its own (nothing
// shared on disk): a drop deployed through one is served by the other from the bucket, and a
// deploy budget spent on one is spent on the other.

let pg: PgServer;
let redis: RedisServer;
let s3: S3Server;
let dirs: string[] = [];
let a: RunningApp;
let b: RunningApp;

beforeAll(async () => {
  [pg, redis, s3] = await Promise.all([startPgServer(), startRedisServer(), startS3Server()]);
  dirs = [await mkdtemp(path.join(tmpdir(), "dropsite-two-a-")), await mkdtemp(path.join(tmpdir(), "dropsite-two-b-"))];
  const vars = { DATABASE_URL: pg.url, REDIS_URL: redis.url, ...s3.vars, RATE_LIMIT_DEPLOYS_PER_MINUTE: "2" };
  // One after the other: the first applies the migrations.
  a = await startApp(vars, { dataDir: dirs[0] });
  b = await startApp(vars, { dataDir: dirs[1] });
}, 180_000);
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await redis?.stop();
  await pg?.stop();
  await s3?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const deploy = (app: RunningApp, html: string) =>
  app.request(`localhost:${app.port}`, "/deploy", {
    method: "POST",
    headers: { "content-type": "text/html" },
    body: html,
  });

describe("two instances on PostgreSQL, S3 and Redis", () => {
  it("a drop deployed on one is served by the other, and both spend one deploy budget", async () => {
    // The limiter's sliding window turns with the clock's minutes, and just after a turn the
    // deploys of the minute before count only in part: start with ten seconds of the minute to spare.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
    const first = await deploy(a, "<p>from a</p>");
    expect(first.status).toBe(200);
    const { slug } = first.json() as { slug: string };
    const served = await b.request(`${slug}.localhost:${b.port}`, "/");
    expect(served.status).toBe(200);
    expect(served.text).toBe("<p>from a</p>");

    expect((await deploy(b, "<p>from b</p>")).status).toBe(200);
    // The budget (2 a minute per address) is spent across both instances.
    for (const app of [a, b]) {
      const refused = await deploy(app, "<p>one too many</p>");
      expect(refused.status).toBe(429);
      expect((refused.json() as { code: string }).code).toBe("rate_limited");
      expect(refused.headers["retry-after"]).toBe("60");
    }
  });
});
