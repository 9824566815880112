import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app-server";
import { PG_BIN, startPgServer, type PgServer } from "../support/pg-server";

// Counts across processes (issue 40): two `npm start` instances on one PostgreSQL count one
// drop's visits; each stops gracefully (SIGTERM) well before its 10 s flush, and the counts of
// both add up exactly in the database, with a visitor seen by both counted once. A dump of the
// database then holds none of the addresses or user agents that were counted.

let db: PgServer;
let a: RunningApp;
let b: RunningApp;
let dataDir = "";

beforeAll(async () => {
  db = await startPgServer();
  // One data directory for both: the file bytes (one machine, two processes).
  dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-stats-"));
  const vars = { DATABASE_URL: db.url, TRUST_PROXY: "1" };
  // One after the other: the first applies the migrations.
  a = await startApp(vars, { dataDir });
  b = await startApp(vars, { dataDir });
}, 180_000);
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await db?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const PERSON = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const OTHER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";
const BOT = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
const SLACK = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)";
const P1 = "192.0.2.141";
const P2 = "192.0.2.142";

async function visit(app: RunningApp, slug: string, p: string, ua: string, ip: string): Promise<number> {
  const r = await app.request(`${slug}.localhost:${app.port}`, p, {
    headers: { "user-agent": ua, "x-forwarded-for": ip },
  });
  return r.status;
}

describe("counts of two instances", () => {
  it("add up, lose nothing on a graceful stop, and leave no address or user agent in the database", async () => {
    const deployed = await a.request(`localhost:${a.port}`, "/deploy", {
      method: "POST",
      headers: { "content-type": "text/html" },
      body: "<!doctype html><title>counted</title><p>counted twice over</p>",
    });
    expect(deployed.status).toBe(200);
    const { slug } = deployed.json() as { slug: string };

    const started = Date.now();
    expect(await visit(a, slug, "/", PERSON, P1)).toBe(200);
    expect(await visit(a, slug, "/missing", PERSON, P1)).toBe(404);
    expect(await visit(a, slug, "/", SLACK, P2)).toBe(200);
    expect(await visit(b, slug, "/", PERSON, P1)).toBe(200);
    expect(await visit(b, slug, "/", OTHER, P2)).toBe(200);
    expect(await visit(b, slug, "/", BOT, P2)).toBe(200);
    await Promise.all([a.stop(), b.stop()]);
    // Stopped before either instance's first flush was due: what is stored was written at the stop.
    expect(Date.now() - started).toBeLessThan(10_000);
    for (const app of [a, b]) expect(app.proc.exitCode).toBe(0);

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<Record<string, string>>(
        `select s.views, s.visitors, s.requests, s.not_found, s.bot_requests, s.previews, s.paths
           from drop_stats s join drops d on d.id = s.drop_id where d.slug = $1`,
        [slug],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]).toEqual({
        views: "3",
        visitors: "2",
        requests: "1",
        not_found: "1",
        bot_requests: "1",
        previews: "1",
        paths: { "/": 3 },
      });
    } finally {
      await client.end();
    }

    const { stdout: dump } = await promisify(execFile)(path.join(PG_BIN, "pg_dump"), ["--data-only", db.url], {
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(dump).toContain(slug);
    for (const secret of [P1, P2, PERSON, OTHER, "Chrome/131", "Firefox/133", BOT, SLACK])
      expect(dump.includes(secret), secret).toBe(false);
  });
});
