import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createContext, type AppContext } from "@/lib/context";
import { parseEnv } from "@/lib/env";
import { MANIFEST_REVALIDATE_MS } from "@/lib/serve/cache";
import { accountWithKey } from "../support/accounts";
import { startApp, type RunningApp } from "../support/app-server";
import { startPgServer, type PgServer } from "../support/pg-server";

// Two app processes (`node server.mjs`) on one PostgreSQL and one file store: a replace and a
// delete made through one are served by the other within the stated bound (docs/decisions.md,
// "Manifest cache"), and at once by the one that made them.

let pg: PgServer;
let dataDir: string;
let setup: AppContext;
let a: RunningApp;
let b: RunningApp;
let apiKey: string;

beforeAll(async () => {
  pg = await startPgServer();
  dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-two-apps-"));
  const vars = { DATABASE_URL: pg.url, SERVE_DOMAIN: "drops.localhost" };
  setup = await createContext(parseEnv({ ...vars, DATA_DIR: dataDir, NODE_ENV: "test" }));
  apiKey = (await accountWithKey(setup, "pro")).apiKey;
  [a, b] = await Promise.all([startApp(vars, { dataDir }), startApp(vars, { dataDir })]);
}, 240_000);
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await setup?.dbHandle.close();
  await pg?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const deploy = (html: string) =>
  a.request(`localhost:${a.port}`, "/deploy?name=shared", { method: "POST", body: html, headers: { "content-type": "text/html", authorization: `Bearer ${apiKey}` } });
const visit = (app: RunningApp, slug: string) => app.request(`${slug}.drops.localhost`, "/");
const pastTheBound = () => new Promise((r) => setTimeout(r, MANIFEST_REVALIDATE_MS + 250));

describe("two processes, one database", () => {
  it("a replace and a delete reach the other process within the revalidation window", async () => {
    const first = await deploy("<p>one</p>");
    expect(first.status).toBe(200);
    const { slug } = first.json() as { slug: string };
    expect((await visit(b, slug)).text).toBe("<p>one</p>");

    expect((await deploy("<p>two</p>")).status).toBe(200);
    expect((await visit(a, slug)).text).toBe("<p>two</p>");
    await pastTheBound();
    expect((await visit(b, slug)).text).toBe("<p>two</p>");

    const del = await a.request(`localhost:${a.port}`, `/drops/${slug}`, { method: "DELETE", headers: { authorization: `Bearer ${apiKey}` } });
    expect(del.status).toBe(200);
    expect((await visit(a, slug)).status).toBe(404);
    await pastTheBound();
    expect((await visit(b, slug)).status).toBe(404);
  });
});
