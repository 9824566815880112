import { createServer, type Server } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { accountWithKey, bearer } from "../support/accounts";
import { makeTestContext, type TestContext } from "../support/context";
import { freePort } from "../support/net";
import { startNext, type NextStart } from "../support/next-start";
import { startPgServer, type PgServer } from "../support/pg-server";

// Vercel's path (`next start`: no delivery worker in the process, and a Hobby project's cron runs
// at most daily): a webhook event is delivered right after the change answers, by the pass Next's
// after() runs, with no call of GET /cron/webhooks. The built app, on a real PostgreSQL that the
// test also opens to make the account.

let pg: PgServer;
let t: TestContext;
let next: NextStart | undefined;
let receiver: Server;
let dataDir: string;
let base: string;
const received: { headers: Record<string, string>; body: string }[] = [];
let receiverUrl: string;
let out = "";

beforeAll(async () => {
  pg = await startPgServer();
  t = await makeTestContext({ DATABASE_URL: pg.url });
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(204).end();
    });
  });
  const rport = await freePort();
  await new Promise<void>((r) => receiver.listen(rport, "127.0.0.1", r));
  receiverUrl = `http://127.0.0.1:${rport}/hook`;
  dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-after-"));
  next = await startNext({ DATA_DIR: dataDir, DATABASE_URL: pg.url, WEBHOOKS_ALLOW_PRIVATE: "1" }, (d) => (out += d));
  base = next.base;
}, 240_000);

afterAll(async () => {
  await next?.stop();
  await new Promise((r) => receiver?.close(r));
  await t?.close();
  await pg?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("webhooks on the Vercel path", () => {
  it("a deploy's event reaches the receiver right after the deploy answers, without the cron", async () => {
    const { apiKey } = await accountWithKey(t.ctx);
    const created = await fetch(`${base}/webhooks`, {
      method: "POST",
      headers: { ...bearer(apiKey), "content-type": "application/json" },
      body: JSON.stringify({ url: receiverUrl, events: ["drop.deployed"] }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { secret } = (await created.json()) as { secret: string };
    expect(received).toHaveLength(0);

    const deployed = await fetch(`${base}/deploy`, {
      method: "POST",
      headers: { ...bearer(apiKey), "content-type": "text/html" },
      body: "<h1>hello</h1>",
    });
    expect(deployed.status, await deployed.clone().text()).toBe(200);
    const { slug } = (await deployed.json()) as { slug: string };

    const deadline = Date.now() + 15_000;
    while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(received, out).toHaveLength(1);
    const hook = received[0]!;
    const event = new Webhook(secret).verify(hook.body, hook.headers) as { type: string; data: { slug: string } };
    expect(event).toMatchObject({ type: "drop.deployed", data: { slug } });
  });
});
