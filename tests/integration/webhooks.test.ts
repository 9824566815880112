import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { disableDrop, enableDrop } from "@/lib/admin/actions";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { count, eq, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { POST as deployPOST } from "@/app/deploy/route";
import { POST as appendPOST } from "@/app/deploy/[slug]/route";
import * as dropRoute from "@/app/drops/[slug]/route";
import * as accessRoute from "@/app/drops/[slug]/access/route";
import * as rollbackRoute from "@/app/drops/[slug]/rollback/route";
import * as aliasRoute from "@/app/drops/[slug]/aliases/[name]/route";
import * as claimRoute from "@/app/claim/route";
import * as limitsRoute from "@/app/limits/route";
import * as webhooksRoute from "@/app/webhooks/route";
import * as webhookRoute from "@/app/webhooks/[id]/route";
import * as deliveriesRoute from "@/app/webhooks/[id]/deliveries/route";
import * as cronRoute from "@/app/cron/webhooks/route";
import type { AppContext } from "@/lib/context";
import { openDb } from "@/lib/db/client";
import { recordEvent } from "@/lib/db/events";
import { drops, events, webhookAttempts, webhookDeliveries, webhooks } from "@/lib/db/schema";
import { runCleanup } from "@/lib/drops/lifecycle";
import { WEBHOOK_EVENT_TYPES } from "@/lib/patterns";
import { reviewCall } from "../support/review";
import { limits, WEBHOOK_RETRY_SECONDS } from "@/lib/plans";
import { isRefusedAddress } from "@/lib/webhooks/address";
import { metrics } from "@/lib/metrics/registry";
import { deliverDue, signedHeaders, startWebhookWorker } from "@/lib/webhooks/deliver";
import { openSecret } from "@/lib/webhooks/secret";
import { accountWithKey, bearer } from "../support/accounts";
import { apiRequest, suiteContext, TEST_SERVE_DOMAIN } from "../support/context";
import { registerSecret } from "../support/secrets";
import { connectInProcess, resultText, type CallResult } from "../support/mcp";
import { cliAgainstRoutes } from "../support/cli";
import { teamKeyOf, teamWith } from "../support/teams";
import { webhookPayloadSchema } from "@/lib/schemas";

// Webhooks: the outbox written in each change's transaction, delivery signed by the Standard
// Webhooks scheme to a local receiver that verifies with the standardwebhooks package, retries,
// the address rules, and the routes' ownership. Runs on PGlite and on a real PostgreSQL.

const t = suiteContext({ CRON_SECRET: "cron-secret-webhooks", WEBHOOKS_ALLOW_PRIVATE: "1" }, { freshLimiter: true });
const noParams = { params: Promise.resolve({}) };
const idParams = (id: string) => ({ params: Promise.resolve({ id }) });
const slugParams = (slug: string) => ({ params: Promise.resolve({ slug }) });
let ip = 0;

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  payload: { id: string; type: string; created_at: string; data: Record<string, unknown> };
}

/** A receiver on loopback: answers `status()` and keeps every request whose signature verifies. */
class Receiver {
  server!: Server;
  url = "";
  received: Received[] = [];
  unverified = 0;
  status: () => number = () => 200;
  secret = "";
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const status = this.status();
        try {
          const payload = new Webhook(this.secret).verify(
            body,
            req.headers as Record<string, string>,
          ) as Received["payload"];
          if (status >= 200 && status < 300) this.received.push({ headers: req.headers, body, payload });
        } catch {
          this.unverified++;
        }
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }
  close(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

async function call(
  handler: (req: Request, p: never) => Promise<Response>,
  path: string,
  init: RequestInit & { key?: string | null; params?: unknown } = {},
) {
  const { key, params, ...rest } = init;
  const headers = {
    ...(rest.body ? { "content-type": "application/json" } : {}),
    ...(key ? bearer(key) : {}),
    ...(rest.headers as Record<string, string> | undefined),
  };
  const res = await handler(
    apiRequest(path, { ...rest, headers, ip: `198.51.100.${(++ip % 250) + 1}` }),
    (params ?? noParams) as never,
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const addWebhook = (key: string | null, body: unknown) =>
  call(webhooksRoute.POST, "/webhooks", {
    method: "POST",
    key,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const deploy = (key: string | null, files: Record<string, string>, query = "") =>
  call(deployPOST, `/deploy${query}`, { method: "POST", key, body: JSON.stringify({ files }) });

async function withPrivate<T>(allowed: boolean, step: () => Promise<T>): Promise<T> {
  const before = t.ctx.env.WEBHOOKS_ALLOW_PRIVATE;
  t.ctx.env.WEBHOOKS_ALLOW_PRIVATE = allowed;
  try {
    return await step();
  } finally {
    t.ctx.env.WEBHOOKS_ALLOW_PRIVATE = before;
  }
}

/** Runs delivery passes until nothing is due (retries wait for the clock). */
async function drain(ctx: AppContext = t.ctx) {
  return deliverDue(ctx, 20_000);
}

let receiver: Receiver;
beforeAll(async () => {
  receiver = new Receiver();
  await receiver.start();
});
afterAll(async () => {
  await receiver.close();
});
beforeEach(async () => {
  receiver.received = [];
  receiver.unverified = 0;
  receiver.status = () => 200;
  // Each test starts with no delivery owed by an earlier one.
  await t.ctx.db.delete(webhooks);
});

/** A pro account with a webhook on the receiver (private addresses allowed, as a self-hoster's network). */
async function subscribed(plan: "pro" | "free" = "pro", eventsWanted?: string[]) {
  const acc = await accountWithKey(t.ctx, plan);
  const created = await withPrivate(true, () =>
    addWebhook(acc.apiKey, { url: receiver.url, ...(eventsWanted ? { events: eventsWanted } : {}) }),
  );
  expect(created.status).toBe(201);
  registerSecret("webhook secret", created.body.secret);
  receiver.secret = created.body.secret;
  return { ...acc, webhook: created.body as { id: string; url: string; events: string[]; secret: string } };
}

describe("POST/GET/DELETE /webhooks", () => {
  it("creates a webhook with all fifteen events by default, shows the secret once, lists it without, deletes it then 404", async () => {
    const acc = await accountWithKey(t.ctx, "pro");
    const created = await withPrivate(true, () => addWebhook(acc.apiKey, { url: receiver.url }));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^wh_[a-z2-7]{24}$/),
      url: receiver.url,
      events: WEBHOOK_EVENT_TYPES,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    registerSecret("webhook secret", created.body.secret);
    expect(WEBHOOK_EVENT_TYPES).toHaveLength(15);
    // Stored sealed, not in the clear; the server's key opens it.
    const [row] = await t.ctx.db.select().from(webhooks).where(eq(webhooks.id, created.body.id));
    expect(row?.secretSealed).not.toContain(created.body.secret.slice(6));
    expect(openSecret(row!.secretSealed, row!.id, t.ctx.env)).toBe(created.body.secret);

    const listed = await call(webhooksRoute.GET, "/webhooks", { key: acc.apiKey });
    expect(listed).toEqual({
      status: 200,
      body: { webhooks: [{ id: created.body.id, url: receiver.url, events: WEBHOOK_EVENT_TYPES }] },
    });
    expect(JSON.stringify(listed.body)).not.toContain("whsec_");

    const some = await withPrivate(true, () =>
      addWebhook(acc.apiKey, { url: receiver.url, events: ["drop.deleted", "drop.deployed"] }),
    );
    expect(some.body.events).toEqual(["drop.deployed", "drop.deleted"]);

    const del = await call(webhookRoute.DELETE, `/webhooks/${created.body.id}`, {
      method: "DELETE",
      key: acc.apiKey,
      params: idParams(created.body.id),
    });
    expect(del).toEqual({ status: 200, body: { deleted: created.body.id } });
    const again = await call(webhookRoute.DELETE, `/webhooks/${created.body.id}`, {
      method: "DELETE",
      key: acc.apiKey,
      params: idParams(created.body.id),
    });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe("not_found");
    expect((await call(webhooksRoute.GET, "/webhooks", { key: acc.apiKey })).body.webhooks).toHaveLength(1);
  });

  it("another account's webhook answers 404 on DELETE and deliveries, and is not listed; no credential is 401", async () => {
    const a = await subscribed();
    const b = await accountWithKey(t.ctx, "pro");
    const id = a.webhook.id;
    const del = await call(webhookRoute.DELETE, `/webhooks/${id}`, {
      method: "DELETE",
      key: b.apiKey,
      params: idParams(id),
    });
    expect([del.status, del.body.code]).toEqual([404, "not_found"]);
    const log = await call(deliveriesRoute.GET, `/webhooks/${id}/deliveries`, { key: b.apiKey, params: idParams(id) });
    expect([log.status, log.body.code]).toEqual([404, "not_found"]);
    expect((await call(webhooksRoute.GET, "/webhooks", { key: b.apiKey })).body).toEqual({ webhooks: [] });
    expect((await call(webhooksRoute.GET, "/webhooks", {})).status).toBe(401);
    expect((await addWebhook(null, { url: receiver.url })).status).toBe(401);
    for (const bad of ["nope", "wh_", `${id}x`]) {
      expect(
        (await call(deliveriesRoute.GET, `/webhooks/${bad}/deliveries`, { key: a.apiKey, params: idParams(bad) }))
          .status,
      ).toBe(404);
    }
    // Still there for its owner.
    expect(
      (await call(deliveriesRoute.GET, `/webhooks/${id}/deliveries`, { key: a.apiKey, params: idParams(id) })).body,
    ).toEqual({ deliveries: [] });
  });

  it("bad bodies and unknown events answer 400 invalid_request and create nothing", async () => {
    const acc = await accountWithKey(t.ctx, "pro");
    for (const body of [
      {},
      { url: 42 },
      { url: receiver.url, events: ["drop.exploded"] },
      { url: receiver.url, events: [] },
      { url: receiver.url, events: "drop.deployed" },
      "not json",
      "[]",
    ]) {
      const res = await withPrivate(true, () => addWebhook(acc.apiKey, body));
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe("invalid_request");
    }
    const [n] = await t.ctx.db.select({ n: count() }).from(webhooks).where(eq(webhooks.accountId, acc.account.id));
    expect(n?.n).toBe(0);
  });

  it("caps webhooks per account by plan (free 2) and GET /limits reports max_webhooks", async () => {
    expect([limits.free.maxWebhooks, limits.pro.maxWebhooks, limits.team.maxWebhooks]).toEqual([2, 10, 25]);
    const acc = await accountWithKey(t.ctx, "free");
    for (let i = 0; i < limits.free.maxWebhooks; i++)
      expect((await withPrivate(true, () => addWebhook(acc.apiKey, { url: receiver.url }))).status).toBe(201);
    const over = await withPrivate(true, () => addWebhook(acc.apiKey, { url: receiver.url }));
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ code: "invalid_request", limit: "max_webhooks", allowed: 2, plan: "free" });
    const lim = await call(limitsRoute.GET, "/limits", { key: acc.apiKey });
    expect(lim.body.limits.max_webhooks).toBe(2);
  });
});

describe("refused webhook URLs (production rules: WEBHOOKS_ALLOW_PRIVATE unset)", () => {
  const refused = [
    "http://example.com/hook",
    "https://127.0.0.1/hook",
    "https://127.1.2.3/",
    "https://localhost/hook",
    "https://[::1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://[::127.0.0.1]/",
    "https://[64:ff9b::a9fe:a9fe]/",
    "https://2130706433/",
    "https://0x7f000001/",
    "https://0177.0.0.1/",
    "https://0.0.0.0/",
    "https://[::]/",
    "https://[fd12::1]/",
    "https://[fc00::5]/",
    "https://[fe80::1]/",
    "https://[ff02::1]/",
    "https://10.1.2.3/",
    "https://172.16.0.1/",
    "https://172.31.255.254/",
    "https://192.168.1.1/",
    "https://169.254.169.254/latest/meta-data/",
    "https://100.100.100.200/",
    "https://224.0.0.1/",
    "https://255.255.255.255/",
    "ftp://example.com/",
    "https://user:pass@example.com/",
    "not a url",
    "//example.com/hook",
  ];
  it.each(refused)("%s answers 400 invalid_request and creates nothing", async (url) => {
    const acc = await accountWithKey(t.ctx, "pro");
    const res = await withPrivate(false, () => addWebhook(acc.apiKey, { url }));
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "invalid_request", field: "url" });
    const [n] = await t.ctx.db.select({ n: count() }).from(webhooks).where(eq(webhooks.accountId, acc.account.id));
    expect(n?.n).toBe(0);
  });

  it("the address rule: public unicast addresses pass, every private spelling is refused", () => {
    for (const a of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "172.32.0.1", "192.169.0.1", "100.128.0.1"])
      expect(isRefusedAddress(a), a).toBe(false);
    for (const a of [
      "127.0.0.1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "0.0.0.0",
      "fd12::1",
      "172.16.5.4",
      "192.168.0.10",
      "169.254.169.254",
      "fe80::1%eth0",
      "ff02::1",
      "::1",
      "::",
      "64:ff9b::c0a8:1",
      "not-an-ip",
    ]) {
      expect(isRefusedAddress(a), a).toBe(true);
    }
  });

  it("WEBHOOKS_ALLOW_PRIVATE=1 lifts both rules (http and a loopback address)", async () => {
    const acc = await accountWithKey(t.ctx, "pro");
    expect((await withPrivate(false, () => addWebhook(acc.apiKey, { url: receiver.url }))).status).toBe(400);
    expect((await withPrivate(true, () => addWebhook(acc.apiKey, { url: receiver.url }))).status).toBe(201);
  });

  it("is checked again at delivery: a target refused now is not contacted, and the attempt logs why", async () => {
    const acc = await subscribed();
    expect((await deploy(acc.apiKey, { "index.html": "x" })).status).toBe(200);
    const pass = await withPrivate(false, () => drain());
    expect(pass).toEqual({ attempted: 1, delivered: 0 });
    expect(receiver.received).toHaveLength(0);
    expect(receiver.unverified).toBe(0);
    // An https URL whose host is now a loopback address (as a DNS answer changed after creation).
    await t.ctx.db
      .update(webhooks)
      .set({ url: receiver.url.replace("http:", "https:") })
      .where(eq(webhooks.id, acc.webhook.id));
    t.clock.advance(WEBHOOK_RETRY_SECONDS[0]);
    expect(await withPrivate(false, () => drain())).toEqual({ attempted: 1, delivered: 0 });
    expect(receiver.received).toHaveLength(0);
    expect(receiver.unverified).toBe(0);
    const log = await call(deliveriesRoute.GET, `/webhooks/${acc.webhook.id}/deliveries`, {
      key: acc.apiKey,
      params: idParams(acc.webhook.id),
    });
    const entry = {
      event_id: expect.stringMatching(/^msg_/),
      type: "drop.deployed",
      status_code: null,
      created_at: expect.any(String),
    };
    expect(log.body.deliveries).toEqual([
      {
        ...entry,
        attempt: 2,
        error: expect.stringMatching(/^refused: the host 127\.0\.0\.1 resolves to 127\.0\.0\.1/),
      },
      { ...entry, attempt: 1, error: "refused: url must use https" },
    ]);
  });
});

describe("events and their delivery", () => {
  it("every event type arrives signed, with the documented body, to the account's webhook only", async () => {
    const acc = await subscribed();
    const other = await accountWithKey(t.ctx, "pro");
    const url = (slug: string) => `http://${slug}.${TEST_SERVE_DOMAIN}/`;

    const named = await deploy(acc.apiKey, { "index.html": "one" }, "?name=site");
    expect(named.status).toBe(200);
    const slug = named.body.slug as string;
    expect((await deploy(acc.apiKey, { "index.html": "two" }, "?name=site")).status).toBe(200);
    expect(
      (
        await call(appendPOST, `/deploy/${slug}`, {
          method: "POST",
          key: acc.apiKey,
          body: JSON.stringify({ files: { "more.html": "m" } }),
          params: slugParams(slug),
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(rollbackRoute.POST, `/drops/${slug}/rollback`, {
          method: "POST",
          key: acc.apiKey,
          body: JSON.stringify({ version: 1 }),
          params: slugParams(slug),
        })
      ).status,
    ).toBe(200);
    // An alias made and deleted (alias.updated, alias.deleted).
    const aliasParams = { params: Promise.resolve({ slug, name: "staging" }) };
    expect(
      (
        await call(aliasRoute.PUT, `/drops/${slug}/aliases/staging`, {
          method: "PUT",
          key: acc.apiKey,
          body: JSON.stringify({ version: 2 }),
          params: aliasParams,
        })
      ).status,
    ).toBe(200);
    const deleted = await aliasRoute.DELETE(
      apiRequest(`/drops/${slug}/aliases/staging`, { method: "DELETE", headers: bearer(acc.apiKey) }),
      aliasParams,
    );
    expect(deleted.status).toBe(204);
    // A comment made and resolved (comment.created, comment.resolved).
    const made = await reviewCall("POST", `/drops/${slug}/comments`, acc.apiKey, { version: 2, path: "/", body: "Hi" });
    expect(made.status).toBe(201);
    const resolvedComment = await reviewCall("PATCH", `/drops/${slug}/comments/${made.body!.id}`, acc.apiKey, {
      status: "resolved",
    });
    expect(resolvedComment.status).toBe(200);
    expect(
      (
        await call(accessRoute.PUT, `/drops/${slug}/access`, {
          method: "PUT",
          key: acc.apiKey,
          body: JSON.stringify({ mode: "password", password: "correct horse battery" }),
          params: slugParams(slug),
        })
      ).status,
    ).toBe(200);
    const anon = await deploy(null, { "index.html": "anon" });
    registerSecret("claim token", anon.body.claim_token);
    expect(
      (
        await call(claimRoute.POST, "/claim", {
          method: "POST",
          key: acc.apiKey,
          body: JSON.stringify({ slug: anon.body.slug, claim_token: anon.body.claim_token }),
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(dropRoute.DELETE, `/drops/${anon.body.slug}`, {
          method: "DELETE",
          key: acc.apiKey,
          params: slugParams(anon.body.slug),
        })
      ).status,
    ).toBe(200);
    const short = await deploy(acc.apiKey, { "index.html": "short" }, "?ttl=60");
    // Another account's change is not this webhook's business.
    expect((await deploy(other.apiKey, { "index.html": "theirs" })).status).toBe(200);
    t.clock.advance(120);
    expect((await runCleanup(t.ctx)).slugs).toContain(short.body.slug);
    // domain.verified is recorded by the custom-domains flow in its own transaction, through the same function.
    await t.ctx.db.transaction((tx) =>
      recordEvent(tx, {
        accountId: acc.account.id,
        type: "domain.verified",
        data: { domain: "www.example.com", slug },
        now: new Date(t.clock.now),
      }),
    );
    // An operator disables the drop and enables it again (drop.disabled, drop.enabled).
    await disableDrop(t.ctx, { id: "cli" }, slug, { reason: "spam" });
    await enableDrop(t.ctx, { id: "cli" }, slug);

    const pass = await drain();
    expect(pass.delivered).toBe(16);
    expect(receiver.unverified).toBe(0);
    const got = receiver.received.map((r) => r.payload).sort((x, y) => x.id.localeCompare(y.id));
    const byType = Object.fromEntries(receiver.received.map((r) => [r.payload.type, r.payload]));
    expect(Object.keys(byType).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    expect(got).toHaveLength(16);
    for (const r of receiver.received) {
      expect(r.headers["webhook-id"]).toBe(r.payload.id);
      expect(r.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(r.headers["content-type"]).toBe("application/json");
      expect(Object.keys(r.payload)).toEqual(["id", "type", "created_at", "data"]);
      expect(r.payload.id).toMatch(/^msg_[a-z2-7]{24}$/);
      expect(new Date(r.payload.created_at).toISOString()).toBe(r.payload.created_at);
    }
    expect(byType["drop.deployed"]!.data).toEqual({
      slug: expect.any(String),
      url: expect.stringMatching(/^http:\/\//),
      version: 1,
      promoted: true,
      version_url: expect.stringMatching(/^http:\/\/[a-z2-7]{20}---v1\./),
    });
    const vurl = (n: number) => url(slug).replace(`${slug}.`, `${slug}---v${n}.`);
    expect(byType["drop.replaced"]!.data).toEqual({
      slug,
      url: url(slug),
      version: 2,
      promoted: true,
      version_url: vurl(2),
    });
    expect(byType["drop.appended"]!.data).toEqual({
      slug,
      url: url(slug),
      version: 3,
      promoted: true,
      version_url: vurl(3),
    });
    expect(byType["drop.rolled_back"]!.data).toEqual({ slug, url: url(slug), version: 1 });
    expect(byType["drop.access_changed"]!.data).toEqual({ slug, url: url(slug), version: 1, access: "password" });
    expect(byType["drop.claimed"]!.data).toEqual({ slug: anon.body.slug, url: url(anon.body.slug), version: 1 });
    expect(byType["drop.deleted"]!.data).toEqual({ slug: anon.body.slug, url: url(anon.body.slug), version: 1 });
    expect(byType["drop.expired"]!.data).toEqual({ slug: short.body.slug, url: url(short.body.slug), version: 1 });
    expect(byType["domain.verified"]!.data).toEqual({ slug, url: url(slug), domain: "www.example.com" });
    expect(byType["drop.disabled"]!.data).toEqual({ slug, url: url(slug), version: 1, reason: "spam" });
    expect(byType["drop.enabled"]!.data).toEqual({ slug, url: url(slug), version: 1 });
    const aliasUrl = url(slug).replace(`${slug}.`, `${slug}---staging.`);
    expect(byType["alias.updated"]!.data).toEqual({ slug, url: aliasUrl, name: "staging", version: 2 });
    expect(byType["alias.deleted"]!.data).toEqual({ slug, url: url(slug), name: "staging", version: 2 });
    const comment = {
      id: made.body!.id,
      version: 2,
      path: "/",
      body: "Hi",
      author: { kind: "account", name: acc.account.email },
      pin: null,
    };
    expect(byType["comment.created"]!.data).toEqual({ slug, url: url(slug), comment });
    expect(byType["comment.resolved"]!.data).toEqual({ slug, url: url(slug), comment });
    // The anonymous deploy (nobody's) and the other account's deploy reached no one here.
    expect(
      got
        .filter((p) => p.type === "drop.deployed")
        .map((p) => p.data.slug)
        .sort(),
    ).toEqual([slug, short.body.slug].sort());
    const [otherEvents] = await t.ctx.db
      .select({ n: count() })
      .from(events)
      .where(eq(events.accountId, other.account.id));
    expect(otherEvents?.n).toBe(1);

    // The delivery log: one attempt per event, 200.
    const log = await call(deliveriesRoute.GET, `/webhooks/${acc.webhook.id}/deliveries`, {
      key: acc.apiKey,
      params: idParams(acc.webhook.id),
    });
    expect(log.body.deliveries).toHaveLength(16);
    expect(
      log.body.deliveries.every(
        (d: Record<string, unknown>) => d.status_code === 200 && d.error === null && d.attempt === 1,
      ),
    ).toBe(true);
    // Nothing more is due.
    expect(await drain()).toEqual({ attempted: 0, delivered: 0 });
  });

  it("a webhook subscribed to some events gets only those; a change with no webhook records its event and owes nothing", async () => {
    const acc = await subscribed("pro", ["drop.deleted"]);
    const d = await deploy(acc.apiKey, { "index.html": "x" });
    expect(
      (
        await call(dropRoute.DELETE, `/drops/${d.body.slug}`, {
          method: "DELETE",
          key: acc.apiKey,
          params: slugParams(d.body.slug),
        })
      ).status,
    ).toBe(200);
    await drain();
    expect(receiver.received.map((r) => r.payload.type)).toEqual(["drop.deleted"]);
    const lone = await accountWithKey(t.ctx, "pro");
    await deploy(lone.apiKey, { "index.html": "x" });
    const [e] = await t.ctx.db.select({ n: count() }).from(events).where(eq(events.accountId, lone.account.id));
    expect(e?.n).toBe(1);
    const [owed] = await t.ctx.db
      .select({ n: count() })
      .from(webhookDeliveries)
      .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
      .where(eq(events.accountId, lone.account.id));
    expect(owed?.n).toBe(0);
  });

  it("a delivery signed in the last millisecond of a second carries that second in webhook-timestamp, and verifies", () => {
    // The timestamp header and the signature come from one instant: read twice, a second's tick
    // between the reads made a signature the receiver refused (a reliability run saw one).
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    const second = Math.floor(Date.now() / 1000) - 1;
    for (const ms of [0, 999]) {
      const at = new Date(second * 1000 + ms);
      const body = JSON.stringify({ id: "evt_edge", type: "drop.created", data: {} });
      const headers = signedHeaders(secret, "evt_edge", at, body);
      expect(headers["webhook-timestamp"]).toBe(String(second));
      expect(new Webhook(secret).verify(body, headers)).toMatchObject({ id: "evt_edge" });
      // A header a second apart from the signed instant is refused: the pairing is what is checked.
      const off = { ...headers, "webhook-timestamp": String(second + 1) };
      expect(() => new Webhook(secret).verify(body, off)).toThrow();
    }
  });

  it("a receiver answering 503 for a while then 200 receives every event, with the same webhook-id on every retry", async () => {
    // The metrics move with every attempt: webhook_deliveries_total{outcome}, webhook_outbox_pending.
    const attempts = async () =>
      Object.fromEntries((await metrics().webhookDeliveries.get()).values.map((v) => [v.labels.outcome, v.value]));
    const pending = async () => (await metrics().webhookPending.get()).values[0]?.value;
    const before = await attempts();
    const moved = async (outcome: string) => ((await attempts())[outcome] ?? 0) - (before[outcome] ?? 0);
    const acc = await subscribed();
    for (let i = 0; i < 3; i++) expect((await deploy(acc.apiKey, { "index.html": `v${i}` })).status).toBe(200);
    let down = true;
    const seen: string[] = [];
    receiver.status = () => (down ? 503 : 200);
    const origin = receiver.server.listeners("request")[0] as (...a: unknown[]) => void;
    receiver.server.prependListener(
      "request",
      (req: { headers: IncomingHttpHeaders }) => void seen.push(String(req.headers["webhook-id"])),
    );
    // First attempt at once, then retries on the schedule (the first within 60 s).
    expect(WEBHOOK_RETRY_SECONDS[0]).toBeLessThanOrEqual(60);
    expect(await drain()).toEqual({ attempted: 3, delivered: 0 });
    expect(await moved("error")).toBe(3);
    expect(await pending()).toBe(3);
    expect(await drain()).toEqual({ attempted: 0, delivered: 0 });
    t.clock.advance(WEBHOOK_RETRY_SECONDS[0]);
    expect(await drain()).toEqual({ attempted: 3, delivered: 0 });
    t.clock.advance(WEBHOOK_RETRY_SECONDS[1]);
    down = false;
    expect(await drain()).toEqual({ attempted: 3, delivered: 3 });
    expect([await moved("error"), await moved("ok"), await moved("refused")]).toEqual([6, 3, 0]);
    expect(await pending()).toBe(0);
    receiver.server.removeAllListeners("request");
    receiver.server.on("request", origin);
    expect(receiver.received).toHaveLength(3);
    const ids = receiver.received.map((r) => r.payload.id);
    // Each event id was sent three times: the same webhook-id on every attempt.
    for (const id of ids) expect(seen.filter((s) => s === id)).toHaveLength(3);
    const log = await call(deliveriesRoute.GET, `/webhooks/${acc.webhook.id}/deliveries`, {
      key: acc.apiKey,
      params: idParams(acc.webhook.id),
    });
    const forFirst = (log.body.deliveries as Array<Record<string, unknown>>)
      .filter((d) => d.event_id === ids[0])
      .sort((a, b) => Number(a.attempt) - Number(b.attempt));
    expect(forFirst.map((d) => [d.attempt, d.status_code, d.error])).toEqual([
      [1, 503, "the receiver answered 503"],
      [2, 503, "the receiver answered 503"],
      [3, 200, null],
    ]);
  });

  it("retries back off exponentially for over 24 hours, then the delivery is failed and logged", async () => {
    const total = WEBHOOK_RETRY_SECONDS.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(24 * 3600);
    for (let i = 1; i < WEBHOOK_RETRY_SECONDS.length; i++)
      expect(WEBHOOK_RETRY_SECONDS[i]).toBeGreaterThanOrEqual(WEBHOOK_RETRY_SECONDS[i - 1]!);
    const acc = await subscribed();
    receiver.status = () => 500;
    await deploy(acc.apiKey, { "index.html": "x" });
    expect((await drain()).attempted).toBe(1);
    for (const wait of WEBHOOK_RETRY_SECONDS) {
      t.clock.advance(wait - 1);
      expect((await drain()).attempted).toBe(0);
      t.clock.advance(1);
      expect((await drain()).attempted).toBe(1);
    }
    t.clock.advance(7 * 86_400);
    expect((await drain()).attempted).toBe(0);
    const [row] = await t.ctx.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, acc.webhook.id));
    expect(row).toMatchObject({ state: "failed", attempts: WEBHOOK_RETRY_SECONDS.length + 1 });
  });

  it("a receiver that never answers costs its own attempt the timeout, never the deploy", async () => {
    const acc = await subscribed();
    const hang = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((r) => hang.listen(0, "127.0.0.1", r));
    try {
      await t.ctx.db
        .update(webhooks)
        .set({ url: `http://127.0.0.1:${(hang.address() as AddressInfo).port}/` })
        .where(eq(webhooks.id, acc.webhook.id));
      const started = Date.now();
      expect((await deploy(acc.apiKey, { "index.html": "x" })).status).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
      const pass = await drain();
      expect(pass).toEqual({ attempted: 1, delivered: 0 });
      const [a] = await t.ctx.db.select().from(webhookAttempts).where(eq(webhookAttempts.webhookId, acc.webhook.id));
      expect(a?.error).toMatch(/no answer within 10 seconds/);
    } finally {
      hang.closeAllConnections();
      hang.close();
    }
  }, 30_000);

  it("two delivery workers (two database connections on PostgreSQL) deliver each event once per attempt", async () => {
    const acc = await subscribed();
    const N = 12;
    for (let i = 0; i < N; i++) expect((await deploy(acc.apiKey, { "index.html": `w${i}` })).status).toBe(200);
    // On PostgreSQL the second worker has a pool of its own, as a second app process would.
    const second = t.hosted ? await openDb({ databaseUrl: t.ctx.env.DATABASE_URL, dataDir: t.dataDir }) : undefined;
    try {
      const other: AppContext = second ? { ...t.ctx, db: second.db, dbHandle: second } : t.ctx;
      const [p1, p2] = await Promise.all([drain(t.ctx), drain(other)]);
      expect(p1.attempted + p2.attempted).toBe(N);
    } finally {
      await second?.close();
    }
    const ids = receiver.received.map((r) => r.payload.id);
    expect(ids).toHaveLength(N);
    expect(new Set(ids).size).toBe(N);
    const [n] = await t.ctx.db
      .select({ n: count() })
      .from(webhookAttempts)
      .where(eq(webhookAttempts.webhookId, acc.webhook.id));
    expect(n?.n).toBe(N);
  });

  it("the app process's worker (started by server.mjs through the data plane's warmUp) delivers within 10 s of the change", async () => {
    const acc = await subscribed();
    const stop = startWebhookWorker(t.ctx);
    try {
      const started = Date.now();
      expect((await deploy(acc.apiKey, { "index.html": "worker" })).status).toBe(200);
      while (receiver.received.length === 0 && Date.now() - started < 10_000)
        await new Promise((r) => setTimeout(r, 50));
      expect(receiver.received.map((r) => r.payload.type)).toEqual(["drop.deployed"]);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      stop();
    }
  });

  it("GET /cron/webhooks delivers what is due (the Vercel path), with the cron secret only", async () => {
    const acc = await subscribed();
    await deploy(acc.apiKey, { "index.html": "x" });
    expect((await call(cronRoute.GET, "/cron/webhooks", {})).status).toBe(401);
    const res = await call(cronRoute.GET, "/cron/webhooks", { key: "cron-secret-webhooks" });
    expect(res).toEqual({ status: 200, body: { attempted: 1, delivered: 1 } });
    expect(receiver.received).toHaveLength(1);
  });
});

describe("the outbox is the change's own transaction", () => {
  // The database fails at the last step of a deploy (the event's insert, after the drop, its
  // files and its version were written): on PostgreSQL the server ends the connection there
  // (pg_terminate_backend of the deploy's own backend, from a trigger), on PGlite the statement
  // fails. Either way neither the change nor its event may remain.
  it("a deploy whose transaction dies mid-way leaves neither the drop nor an event; the next deploy has exactly one", async () => {
    const acc = await subscribed();
    const action = t.hosted ? "perform pg_terminate_backend(pg_backend_pid());" : "raise exception 'database stopped';";
    await t.ctx.db.execute(
      sql.raw(
        `create or replace function stop_mid_deploy() returns trigger language plpgsql as $$ begin ${action} return new; end $$`,
      ),
    );
    await t.ctx.db.execute(
      sql.raw(`create trigger stop_mid_deploy before insert on events for each row execute function stop_mid_deploy()`),
    );
    const [before] = await t.ctx.db.select({ n: count() }).from(drops).where(eq(drops.ownerId, acc.account.id));
    try {
      const res = await deploy(acc.apiKey, { "index.html": "lost" });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe("upstream_unavailable");
    } finally {
      await t.ctx.db.execute(sql.raw(`drop trigger stop_mid_deploy on events`));
      await t.ctx.db.execute(sql.raw(`drop function stop_mid_deploy()`));
    }
    const [after] = await t.ctx.db.select({ n: count() }).from(drops).where(eq(drops.ownerId, acc.account.id));
    expect(after?.n).toBe(before?.n);
    const [ev] = await t.ctx.db.select({ n: count() }).from(events).where(eq(events.accountId, acc.account.id));
    expect(ev?.n).toBe(0);
    const ok = await deploy(acc.apiKey, { "index.html": "kept" });
    expect(ok.status).toBe(200);
    const rows = await t.ctx.db.select().from(events).where(eq(events.accountId, acc.account.id));
    expect(rows.map((r) => [r.type, r.data])).toEqual([
      ["drop.deployed", { slug: ok.body.slug, version: 1, promoted: true, version_url: ok.body.version_url }],
    ]);
    await drain();
    expect(receiver.received.map((r) => r.payload.data.slug)).toEqual([ok.body.slug]);
  });

  it("a refused write (a stale If-Match) records no event", async () => {
    const acc = await subscribed();
    const d = await deploy(acc.apiKey, { "index.html": "a" }, "?name=stale");
    const res = await call(deployPOST, "/deploy?name=stale", {
      method: "POST",
      key: acc.apiKey,
      body: JSON.stringify({ files: { "index.html": "b" } }),
      headers: { "if-match": '"7"' },
    });
    expect(res.status).toBe(409);
    const rows = await t.ctx.db.select({ type: events.type }).from(events).where(eq(events.accountId, acc.account.id));
    expect(rows.map((r) => r.type)).toEqual(["drop.deployed"]);
    expect(d.status).toBe(200);
  });
});

describe("MCP add_webhook, list_webhooks, remove_webhook", () => {
  const tool = async (credential: string | undefined, name: string, args: Record<string, unknown>) => {
    const client = await connectInProcess("modern", { credential, ip: `198.51.100.${(++ip % 250) + 1}` });
    try {
      return (await client.callTool({ name, arguments: args })) as CallResult;
    } finally {
      await client.close();
    }
  };
  const code = (r: CallResult) => (r._meta?.["dev.dropsite/error"] as { code: string } | undefined)?.code;

  it("adds (secret once, in the result), lists without secrets, removes; other accounts and bad input are refused", async () => {
    const acc = await accountWithKey(t.ctx, "pro");
    const added = await tool(acc.apiKey, "add_webhook", { url: receiver.url, events: ["drop.deployed"] });
    expect(added.isError).toBe(false);
    const w = added.structuredContent as { id: string; url: string; events: string[]; secret: string };
    registerSecret("webhook secret", w.secret);
    expect(w).toMatchObject({ url: receiver.url, events: ["drop.deployed"], secret: expect.stringMatching(/^whsec_/) });
    expect(resultText(added)).toContain(w.secret);
    const listed = await tool(acc.apiKey, "list_webhooks", {});
    expect(listed.structuredContent).toEqual({
      webhooks: [{ id: w.id, url: receiver.url, events: ["drop.deployed"] }],
    });
    expect(JSON.stringify(listed)).not.toContain("whsec_");

    const other = await accountWithKey(t.ctx, "pro");
    expect(code(await tool(other.apiKey, "remove_webhook", { id: w.id }))).toBe("not_found");
    expect(code(await tool(acc.apiKey, "add_webhook", { url: receiver.url, events: ["drop.nope"] }))).toBe(
      "invalid_request",
    );
    expect(code(await tool(undefined, "list_webhooks", {}))).toBe("auth_required");
    expect(
      code(await withPrivate(false, () => tool(acc.apiKey, "add_webhook", { url: "https://169.254.169.254/" }))),
    ).toBe("invalid_request");

    const removed = await tool(acc.apiKey, "remove_webhook", { id: w.id });
    expect(removed.structuredContent).toEqual({ deleted: w.id });
    expect(code(await tool(acc.apiKey, "remove_webhook", { id: w.id }))).toBe("not_found");
    expect((await tool(acc.apiKey, "list_webhooks", {})).structuredContent).toEqual({ webhooks: [] });
  });
});

describe("dropsite webhooks add|list|rm|deliveries", () => {
  // The command-line client (cli/dist/dropsite.mjs) against this suite's route modules on loopback.
  const { cli } = cliAgainstRoutes("203.0.113.60", async (request, url) => {
    const m = /^\/webhooks\/([^/]+)(\/deliveries)?$/.exec(url.pathname);
    if (url.pathname === "/webhooks")
      return (request.method === "POST" ? webhooksRoute.POST : webhooksRoute.GET)(request, noParams);
    if (m && m[2]) return deliveriesRoute.GET(request, idParams(m[1]!));
    if (m) return webhookRoute.DELETE(request, idParams(m[1]!));
    return null;
  });

  it("adds (printing the secret once), lists, shows deliveries and removes; bad input exits 1 or 2", async () => {
    const acc = await accountWithKey(t.ctx, "pro");
    const added = await cli(
      ["webhooks", "add", receiver.url, "--events", "drop.deployed,drop.deleted", "--json"],
      acc.apiKey,
    );
    expect(added.code, added.stderr).toBe(0);
    const w = JSON.parse(added.stdout) as { id: string; secret: string; events: string[] };
    registerSecret("webhook secret", w.secret);
    receiver.secret = w.secret;
    expect(w.events).toEqual(["drop.deployed", "drop.deleted"]);
    const list = await cli(["webhooks", "list"], acc.apiKey);
    expect(list.stdout).toMatch(/ID\s+EVENTS\s+URL/);
    expect(list.stdout).toContain(`${w.id}  drop.deployed,drop.deleted  ${receiver.url}`);
    expect(list.stdout).not.toContain("whsec_");

    await deploy(acc.apiKey, { "index.html": "cli" });
    await drain();
    const log = await cli(["webhooks", "deliveries", w.id], acc.apiKey);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toMatch(/TIME\s+EVENT\s+TYPE\s+ATTEMPT\s+RESULT/);
    expect(log.stdout).toMatch(/msg_[a-z2-7]{24}\s+drop\.deployed\s+1\s+200/);

    const bad = await cli(["webhooks", "add", receiver.url, "--events", "drop.nope", "--json"], acc.apiKey);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ code: "invalid_request", status: 400 });
    expect((await cli(["webhooks", "add"], acc.apiKey)).code).toBe(2);
    expect((await cli(["webhooks", "frobnicate"], acc.apiKey)).code).toBe(2);

    const other = await accountWithKey(t.ctx, "pro");
    expect((await cli(["webhooks", "rm", w.id], other.apiKey)).code).toBe(1);
    const rm1 = await cli(["webhooks", "rm", w.id], acc.apiKey);
    expect(rm1.code, rm1.stderr).toBe(0);
    expect(rm1.stdout).toContain(`Removed webhook ${w.id}`);
    expect((await cli(["webhooks", "list"], acc.apiKey)).stdout).toContain("No webhooks.");
  });
});

describe("a team's drops", () => {
  it("a change made with a team key reaches the team's webhook naming the person (data.actor)", async () => {
    const { slug, people } = await teamWith(t.ctx, ["admin"]);
    const admin = people[0]!;
    const teamKey = await teamKeyOf(t.ctx, admin, slug, "hooks");
    const created = await withPrivate(true, () => addWebhook(teamKey, { url: receiver.url }));
    expect(created.status).toBe(201);
    registerSecret("webhook secret", created.body.secret);
    receiver.secret = created.body.secret;
    const made = await deploy(teamKey, { "index.html": "<p>team</p>" });
    expect(made.status).toBe(200);
    await drain();
    const got = receiver.received.find((r) => r.payload.type === "drop.deployed");
    expect(webhookPayloadSchema.parse(got?.payload).data).toMatchObject({
      slug: made.body.slug,
      actor: { id: admin.account.id, email: admin.account.email },
    });
    // The person's own deploy reaches none of the team's webhooks.
    receiver.received = [];
    expect((await deploy(admin.apiKey, { "index.html": "<p>mine</p>" })).status).toBe(200);
    await drain();
    expect(receiver.received).toEqual([]);
  });
});
