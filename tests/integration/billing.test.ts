import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import Stripe from "stripe";
import * as checkoutRoute from "@/app/billing/checkout/route";
import * as portalRoute from "@/app/billing/portal/route";
import * as meRoute from "@/app/billing/me/route";
import * as webhookRoute from "@/app/billing/webhook/route";
import * as deployRoute from "@/app/deploy/route";
import { serveGET } from "../support/serve";
import { setContext } from "@/lib/context";
import { findAccount, setPlan } from "@/lib/db/accounts";
import { billingEvents } from "@/lib/db/schema";
import { checkoutResponseSchema, entitlementsSchema, portalResponseSchema } from "@/lib/schemas";
import {
  freshLimiter,
  apiRequest,
  dropRequest,
  makeTestContext,
  TEST_BASE_URL,
  type TestContext,
} from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { startStripeStandin, type StandinSubscription, type StripeStandin } from "../support/stripe-standin";

// Billing against the real `stripe` SDK pointed at a local stand-in of the Stripe API, and
// webhooks signed with Stripe's real signing scheme.

const WEBHOOK_SECRET = "whsec_test_0123456789abcdef";
const PRICE_PRO = "price_pro_test";
const PRICE_TEAM = "price_team_test";

let t: TestContext;
let stripe: StripeStandin;
const p = <P>(params: P) => ({ params: Promise.resolve(params) });
let ip = 0;

beforeAll(async () => {
  stripe = await startStripeStandin();
  t = await makeTestContext({
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_PRICE_PRO: PRICE_PRO,
    STRIPE_PRICE_TEAM: PRICE_TEAM,
    STRIPE_API_BASE: stripe.url,
  });
});
afterAll(async () => {
  await t.close();
  await stripe.close();
});
beforeEach(async () => {
  await freshLimiter(t);
});

const nowSeconds = () => Math.floor(t.clock.now / 1000);

function checkout(apiKey: string, body?: unknown) {
  return checkoutRoute.POST(
    apiRequest("/billing/checkout", {
      method: "POST",
      headers: { ...bearer(apiKey), "content-type": "application/json" },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    }),
    p({}),
  );
}
const portal = (apiKey: string) =>
  portalRoute.POST(apiRequest("/billing/portal", { method: "POST", headers: bearer(apiKey) }), p({}));
async function me(apiKey: string) {
  const res = await meRoute.GET(apiRequest("/billing/me", { headers: bearer(apiKey) }), p({}));
  expect(res.status).toBe(200);
  return entitlementsSchema.strict().parse(await res.json());
}
async function expectError(res: Response, status: number, code: string) {
  const body = await res.json();
  expect({ status: res.status, code: body.code }).toEqual({ status, code });
  return body as { error: string; code: string; hint?: string; upgrade_url?: string };
}

let eventSeq = 0;
function stripeEvent(type: string, object: unknown, opts: { id?: string; created?: number } = {}) {
  eventSeq++;
  return {
    id: opts.id ?? `evt_test_${eventSeq}_${Math.random().toString(36).slice(2)}`,
    object: "event",
    api_version: "2026-10-28.endive",
    created: opts.created ?? nowSeconds(),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/** POSTs a payload to the webhook with a Stripe-Signature computed the way Stripe does. */
function deliver(
  payload: string,
  sign: { secret?: string; timestamp?: number; header?: string | null; body?: string } = {},
) {
  const header =
    sign.header === undefined
      ? Stripe.webhooks.generateTestHeaderString({
          payload,
          secret: sign.secret ?? WEBHOOK_SECRET,
          timestamp: sign.timestamp ?? nowSeconds(),
        })
      : sign.header;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (header !== null) headers["stripe-signature"] = header;
  return webhookRoute.POST(
    apiRequest("/billing/webhook", { method: "POST", headers, body: sign.body ?? payload }),
    p({}),
  );
}
async function deliverOk(event: ReturnType<typeof stripeEvent>) {
  const res = await deliver(JSON.stringify(event));
  expect(res.status).toBe(200);
  return (await res.json()) as {
    received: boolean;
    duplicate?: boolean;
    stale?: boolean;
    ignored?: boolean;
    outcome?: string;
  };
}

/** An account whose Stripe customer exists (created by a real first checkout). */
async function customerAccount() {
  const a = await accountWithKey(t.ctx);
  expect((await checkout(a.apiKey)).status).toBe(200);
  const row = await findAccount(t.ctx.db, a.account.id);
  expect(row?.stripeCustomerId).toMatch(/^cus_/);
  return { ...a, customerId: row!.stripeCustomerId! };
}

function subscriptionEvent(type: string, sub: StandinSubscription, created?: number, status?: string) {
  return stripeEvent(type, { ...sub, status: status ?? sub.status }, { created });
}

describe("POST /billing/checkout", () => {
  it("creates one Stripe customer per account and reuses it; sessions are subscriptions for the plan's price", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx);
    const before = stripe.requests.length;

    const first = await checkout(apiKey);
    expect(first.status).toBe(200);
    const body = checkoutResponseSchema.strict().parse(await first.json());
    expect(body.alreadySubscribed).toBe(false);
    expect(body.url).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);

    const second = checkoutResponseSchema.parse(await (await checkout(apiKey, { plan: "team" })).json());
    expect(second.alreadySubscribed).toBe(false);

    const seen = stripe.requests.slice(before);
    const customers = seen.filter((r) => r.path === "/v1/customers");
    expect(customers).toHaveLength(1);
    expect(customers[0]!.method).toBe("POST");
    expect(customers[0]!.body).toMatchObject({ email: account.email, metadata: { accountId: account.id } });
    const stored = await findAccount(t.ctx.db, account.id);
    expect(stored?.stripeCustomerId).toMatch(/^cus_/);

    const sessions = seen.filter((r) => r.path === "/v1/checkout/sessions");
    expect(sessions).toHaveLength(2);
    for (const s of sessions) {
      expect(s.method).toBe("POST");
      expect(s.body).toMatchObject({
        mode: "subscription",
        customer: stored!.stripeCustomerId,
        client_reference_id: account.id,
        metadata: { accountId: account.id },
        subscription_data: { metadata: { accountId: account.id } },
      });
      expect(String(s.body.success_url)).toMatch(new RegExp(`^${TEST_BASE_URL}/dashboard`));
      expect(String(s.body.cancel_url)).toMatch(new RegExp(`^${TEST_BASE_URL}/dashboard`));
    }
    expect(sessions[0]!.body.line_items).toEqual([{ price: PRICE_PRO, quantity: "1" }]);
    expect(sessions[1]!.body.line_items).toEqual([{ price: PRICE_TEAM, quantity: "1" }]);
    expect(sessions[1]!.body.metadata).toMatchObject({ plan: "team" });
  });

  it("two concurrent first checkouts of one account create a single customer", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx);
    const before = stripe.requests.length;
    const customersBefore = stripe.customerIds().length;
    const [a, b] = await Promise.all([checkout(apiKey), checkout(apiKey)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    // Each request that found no stored customer asked Stripe for one, with the same idempotency
    // key, so Stripe (and the stand-in) created a single customer.
    const customerCalls = stripe.requests.slice(before).filter((r) => r.path === "/v1/customers");
    expect(customerCalls.length).toBeGreaterThanOrEqual(1);
    expect(new Set(customerCalls.map((r) => r.idempotencyKey)).size).toBe(1);
    expect(stripe.customerIds().length - customersBefore).toBe(1);
    const sessions = stripe.requests.slice(before).filter((r) => r.path === "/v1/checkout/sessions");
    const stored = await findAccount(t.ctx.db, account.id);
    expect(stored!.stripeCustomerId).toBe(stripe.customerIds().at(-1));
    expect(sessions.map((s) => s.body.customer)).toEqual([stored!.stripeCustomerId, stored!.stripeCustomerId]);
  });

  it.each([
    ["an unknown plan", { plan: "enterprise" }],
    ["the free plan", { plan: "free" }],
    ["a non-string plan", { plan: 2 }],
    ["a JSON array", []],
    ["a body that is not JSON", "plan=pro"],
  ])("%s answers 400 invalid_request and calls Stripe not at all", async (_, body) => {
    const { apiKey } = await accountWithKey(t.ctx);
    const before = stripe.requests.length;
    await expectError(await checkout(apiKey, body), 400, "invalid_request");
    expect(stripe.requests.length).toBe(before);
  });

  it("an already subscribed account gets the Customer Portal instead of a second subscription", async () => {
    const { account, apiKey, customerId } = await customerAccount();
    const sub = stripe.putSubscription({ customer: customerId, price: PRICE_PRO });
    await deliverOk(subscriptionEvent("customer.subscription.created", sub));
    const before = stripe.requests.length;
    const res = await checkout(apiKey, { plan: "team" });
    expect(res.status).toBe(200);
    const body = checkoutResponseSchema.parse(await res.json());
    expect(body.alreadySubscribed).toBe(true);
    expect(body.url).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session\/bps_/);
    const seen = stripe.requests.slice(before);
    expect(seen.map((r) => r.path)).toEqual(["/v1/billing_portal/sessions"]);
    expect(seen[0]!.body).toMatchObject({ customer: customerId, return_url: `${TEST_BASE_URL}/dashboard` });
    expect((await me(apiKey)).plan).toBe("pro");
    expect(account.id).toBeTruthy();
  });

  it("a Stripe failure answers 503 upstream_unavailable and stores nothing", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx);
    stripe.failNext(1, 400, "invalid_request_error");
    await expectError(await checkout(apiKey), 503, "upstream_unavailable");
    expect((await findAccount(t.ctx.db, account.id))?.stripeCustomerId).toBeNull();
  });

  it("needs a credential", async () => {
    const res = await checkoutRoute.POST(apiRequest("/billing/checkout", { method: "POST" }), p({}));
    await expectError(res, 401, "auth_required");
  });
});

describe("POST /billing/portal", () => {
  it("answers 400 with a hint when the account has no Stripe customer yet", async () => {
    const { apiKey } = await accountWithKey(t.ctx);
    const body = await expectError(await portal(apiKey), 400, "invalid_request");
    expect(body.hint).toMatch(/checkout/);
  });

  it("returns a Customer Portal session for the account's customer", async () => {
    const { apiKey, customerId } = await customerAccount();
    const before = stripe.requests.length;
    const res = await portal(apiKey);
    expect(res.status).toBe(200);
    const body = portalResponseSchema.strict().parse(await res.json());
    expect(body.url).toMatch(/^https:\/\/billing\.stripe\.test\//);
    const seen = stripe.requests.slice(before);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: "POST",
      path: "/v1/billing_portal/sessions",
      body: { customer: customerId, return_url: `${TEST_BASE_URL}/dashboard` },
    });
  });

  it("is POST only", async () => {
    const { apiKey } = await accountWithKey(t.ctx);
    const res = await portalRoute.GET(apiRequest("/billing/portal", { headers: bearer(apiKey) }), p({}));
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("GET /billing/me", () => {
  it("reports a new account as free, with no subscription and no portal", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx);
    expect(await me(apiKey)).toEqual({
      accountId: account.id,
      plan: "free",
      activeSubscription: false,
      currentPeriodEnd: null,
      cancelAt: null,
      portalAvailable: false,
    });
  });

  it("needs a credential", async () => {
    await expectError(await meRoute.GET(apiRequest("/billing/me"), p({})), 401, "auth_required");
  });
});

describe("POST /billing/webhook: signatures", () => {
  async function teamSubscriptionPayload() {
    const a = await customerAccount();
    const sub = stripe.putSubscription({ customer: a.customerId, price: PRICE_TEAM });
    return { ...a, sub, payload: JSON.stringify(subscriptionEvent("customer.subscription.created", sub)) };
  }

  it("a validly signed event is applied", async () => {
    const { apiKey, payload, sub } = await teamSubscriptionPayload();
    const res = await deliver(payload);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ received: true, outcome: "applied" });
    const e = await me(apiKey);
    expect(e).toMatchObject({ plan: "team", activeSubscription: true, portalAvailable: true, cancelAt: null });
    expect(e.currentPeriodEnd).toBe(new Date(sub.items.data[0]!.current_period_end * 1000).toISOString());
  });

  it("a tampered body answers 400 invalid_request and changes nothing", async () => {
    const { apiKey, payload } = await teamSubscriptionPayload();
    const tampered = payload.replace(PRICE_TEAM, PRICE_PRO);
    expect(tampered).not.toBe(payload);
    await expectError(await deliver(payload, { body: tampered }), 400, "invalid_request");
    expect((await me(apiKey)).plan).toBe("free");
  });

  it("a stale signature (timestamp 10 minutes old) answers 400 and changes nothing", async () => {
    const { apiKey, payload } = await teamSubscriptionPayload();
    await expectError(await deliver(payload, { timestamp: nowSeconds() - 600 }), 400, "invalid_request");
    expect((await me(apiKey)).plan).toBe("free");
    // Four minutes old is inside the 300 s tolerance.
    expect((await deliver(payload, { timestamp: nowSeconds() - 240 })).status).toBe(200);
    expect((await me(apiKey)).plan).toBe("team");
  });

  it("a signature made with another secret answers 400 and changes nothing", async () => {
    const { apiKey, payload } = await teamSubscriptionPayload();
    await expectError(await deliver(payload, { secret: "whsec_someone_else" }), 400, "invalid_request");
    expect((await me(apiKey)).plan).toBe("free");
  });

  it.each([
    ["missing", null],
    ["garbage", "not-a-signature"],
    ["without v1", `t=${Math.floor(Date.parse("2026-11-01T12:00:00Z") / 1000)}`],
  ])("a %s Stripe-Signature header answers 400", async (_, header) => {
    const { apiKey, payload } = await teamSubscriptionPayload();
    await expectError(await deliver(payload, { header }), 400, "invalid_request");
    expect((await me(apiKey)).plan).toBe("free");
  });

  it("a replayed event changes nothing (idempotent by event id)", async () => {
    const { account, apiKey, customerId } = await customerAccount();
    const sub = stripe.putSubscription({ customer: customerId, price: PRICE_PRO });
    const ended = subscriptionEvent("customer.subscription.deleted", sub, nowSeconds(), "canceled");
    expect(await deliverOk(ended)).toMatchObject({ outcome: "applied" });
    expect((await me(apiKey)).plan).toBe("free");
    // An operator grants pro by hand; a replay of the old deletion (freshly signed, same id) must not undo it.
    await setPlan(t.ctx.db, account.id, "pro");
    t.clock.advance(5);
    expect(await deliverOk(ended)).toMatchObject({ received: true, duplicate: true });
    expect((await me(apiKey)).plan).toBe("pro");
    const rows = (await t.ctx.db.select().from(billingEvents)).filter((r) => r.id === ended.id);
    expect(rows).toHaveLength(1);
  });

  it("an out-of-order event cannot overwrite newer state", async () => {
    const { apiKey, customerId } = await customerAccount();
    const sub = stripe.putSubscription({ customer: customerId, price: PRICE_TEAM });
    const t0 = nowSeconds();
    // Stripe sent: created (t0) → deleted (t0+10) → re-subscribed? No: updated (t0+20, active). It delivers updated first.
    expect(await deliverOk(subscriptionEvent("customer.subscription.updated", sub, t0 + 20))).toMatchObject({
      outcome: "applied",
    });
    expect((await me(apiKey)).plan).toBe("team");
    expect(await deliverOk(subscriptionEvent("customer.subscription.deleted", sub, t0 + 10, "canceled"))).toMatchObject(
      { stale: true },
    );
    expect((await me(apiKey)).plan).toBe("team");
    expect(await deliverOk(subscriptionEvent("customer.subscription.created", sub, t0))).toMatchObject({ stale: true });
    // A newer deletion does apply.
    expect(await deliverOk(subscriptionEvent("customer.subscription.deleted", sub, t0 + 30, "canceled"))).toMatchObject(
      { outcome: "applied" },
    );
    expect(await me(apiKey)).toMatchObject({ plan: "free", activeSubscription: false });
  });

  it("unknown event types are acknowledged and ignored", async () => {
    const body = await deliverOk(stripeEvent("charge.refunded", { id: "ch_1", object: "charge" }));
    expect(body).toEqual({ received: true, type: "charge.refunded", ignored: true });
  });

  it("is POST only", async () => {
    expect((await webhookRoute.GET(apiRequest("/billing/webhook"), p({}))).status).toBe(405);
  });
});

describe("POST /billing/webhook: subscription states", () => {
  it("checkout.session.completed links the customer by client_reference_id and applies the subscription it fetched", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx);
    // A customer created outside this server's checkout (e.g. in the Stripe dashboard).
    const sub = stripe.putSubscription({ customer: "cus_external_1", price: PRICE_TEAM });
    const before = stripe.requests.length;
    const session = {
      id: "cs_test_ext",
      object: "checkout.session",
      mode: "subscription",
      customer: "cus_external_1",
      subscription: sub.id,
      client_reference_id: account.id,
      metadata: { accountId: account.id },
    };
    expect(await deliverOk(stripeEvent("checkout.session.completed", session))).toMatchObject({ outcome: "applied" });
    expect(stripe.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual([
      `GET /v1/subscriptions/${sub.id}`,
    ]);
    expect(await me(apiKey)).toMatchObject({ plan: "team", activeSubscription: true, portalAvailable: true });
    expect((await findAccount(t.ctx.db, account.id))?.stripeCustomerId).toBe("cus_external_1");
  });

  it("a checkout.session.completed whose subscription cannot be fetched answers 503 and can be retried", async () => {
    const { apiKey, customerId, account } = await customerAccount();
    const sub = stripe.putSubscription({ customer: customerId, price: PRICE_PRO });
    const event = stripeEvent("checkout.session.completed", {
      id: "cs_x",
      object: "checkout.session",
      mode: "subscription",
      customer: customerId,
      subscription: sub.id,
      client_reference_id: account.id,
    });
    stripe.failNext(1, 400);
    expect((await deliver(JSON.stringify(event))).status).toBe(503);
    expect((await me(apiKey)).plan).toBe("free");
    expect(await deliverOk(event)).toMatchObject({ outcome: "applied" });
    expect((await me(apiKey)).plan).toBe("pro");
  });

  it("past_due keeps the plan and records the status; invoice.payment_failed marks it past_due", async () => {
    const { account, apiKey, customerId } = await customerAccount();
    const sub = stripe.putSubscription({ customer: customerId, price: PRICE_PRO });
    const t0 = nowSeconds();
    await deliverOk(subscriptionEvent("customer.subscription.created", sub, t0));
    const invoice = {
      id: "in_1",
      object: "invoice",
      customer: customerId,
      parent: { type: "subscription_details", subscription_details: { subscription: sub.id } },
    };
    expect(await deliverOk(stripeEvent("invoice.payment_failed", invoice, { created: t0 + 1 }))).toMatchObject({
      outcome: "applied",
    });
    expect(await me(apiKey)).toMatchObject({ plan: "pro", activeSubscription: true });
    expect((await findAccount(t.ctx.db, account.id))?.subscriptionStatus).toBe("past_due");
    await deliverOk(subscriptionEvent("customer.subscription.updated", sub, t0 + 2, "past_due"));
    expect((await me(apiKey)).plan).toBe("pro");
    await deliverOk(subscriptionEvent("customer.subscription.updated", sub, t0 + 3, "unpaid"));
    expect(await me(apiKey)).toMatchObject({ plan: "free", activeSubscription: false });
  });

  it("trialing grants the plan; a scheduled cancellation shows as cancelAt; an upgrade changes the plan", async () => {
    const { apiKey, customerId } = await customerAccount();
    const t0 = nowSeconds();
    const sub = stripe.putSubscription({ customer: customerId, price: PRICE_PRO, status: "trialing" });
    await deliverOk(subscriptionEvent("customer.subscription.created", sub, t0));
    expect((await me(apiKey)).plan).toBe("pro");
    const cancelAt = t0 + 7 * 86_400;
    await deliverOk(
      stripeEvent(
        "customer.subscription.updated",
        { ...sub, status: "active", cancel_at: cancelAt },
        { created: t0 + 1 },
      ),
    );
    expect(await me(apiKey)).toMatchObject({ plan: "pro", cancelAt: new Date(cancelAt * 1000).toISOString() });
    const upgraded = {
      ...sub,
      items: { ...sub.items, data: [{ ...sub.items.data[0]!, price: { id: PRICE_TEAM, object: "price" } }] },
    };
    await deliverOk(stripeEvent("customer.subscription.updated", upgraded, { created: t0 + 2 }));
    expect((await me(apiKey)).plan).toBe("team");
  });

  it("the end of an old subscription does not downgrade an account paying through a newer one", async () => {
    const { apiKey, customerId } = await customerAccount();
    const t0 = nowSeconds();
    const old = stripe.putSubscription({ customer: customerId, price: PRICE_PRO });
    const current = stripe.putSubscription({ customer: customerId, price: PRICE_TEAM });
    await deliverOk(subscriptionEvent("customer.subscription.created", old, t0));
    await deliverOk(subscriptionEvent("customer.subscription.created", current, t0 + 1));
    expect((await me(apiKey)).plan).toBe("team");
    expect(await deliverOk(subscriptionEvent("customer.subscription.deleted", old, t0 + 2, "canceled"))).toMatchObject({
      outcome: "no_change",
    });
    expect(await me(apiKey)).toMatchObject({ plan: "team", activeSubscription: true });
  });

  it("an event for a customer no account has is acknowledged", async () => {
    const sub = stripe.putSubscription({ customer: "cus_nobody", price: PRICE_PRO });
    expect(await deliverOk(subscriptionEvent("customer.subscription.created", sub))).toMatchObject({
      received: true,
      outcome: "no_account",
    });
  });
});

describe("end to end: upgrade, named drops, downgrade", () => {
  function deploy(apiKey: string, query: string, html: string) {
    ip++;
    return deployRoute.POST(
      apiRequest(`/deploy${query}`, {
        method: "POST",
        body: html,
        headers: { "content-type": "text/html", ...bearer(apiKey) },
        ip: `198.19.${ip >> 8}.${ip & 255}`,
      }),
      p({}),
    );
  }

  it("a free account pays, deploys a named drop, is downgraded, and its drop keeps serving", async () => {
    const { account, apiKey } = await accountWithKey(t.ctx);
    const refused = await expectError(await deploy(apiKey, "?name=x", "<h1>x</h1>"), 402, "subscription_required");
    expect(refused.upgrade_url).toBeTruthy();

    // The user starts checkout; Stripe then reports the completed session and the new subscription.
    const started = checkoutResponseSchema.parse(await (await checkout(apiKey, { plan: "pro" })).json());
    expect(started.alreadySubscribed).toBe(false);
    const customerId = (await findAccount(t.ctx.db, account.id))!.stripeCustomerId!;
    const sub = stripe.putSubscription({ customer: customerId, price: PRICE_PRO, metadata: { accountId: account.id } });
    const t0 = nowSeconds();
    await deliverOk(
      stripeEvent(
        "checkout.session.completed",
        {
          id: "cs_e2e",
          object: "checkout.session",
          mode: "subscription",
          customer: customerId,
          subscription: sub.id,
          client_reference_id: account.id,
        },
        { created: t0 },
      ),
    );
    await deliverOk(subscriptionEvent("customer.subscription.created", sub, t0));
    expect(await me(apiKey)).toMatchObject({ plan: "pro", activeSubscription: true });

    const named = await deploy(apiKey, "?name=x", "<h1>named x</h1>");
    expect(named.status).toBe(200);
    const drop = (await named.json()) as { slug: string; name: string; expires_at: string | null; plan: string };
    expect(drop).toMatchObject({ name: "x", plan: "pro", expires_at: null });

    t.clock.advance(60);
    await deliverOk(subscriptionEvent("customer.subscription.deleted", sub, nowSeconds(), "canceled"));
    expect(await me(apiKey)).toMatchObject({ plan: "free", activeSubscription: false });

    const visit = await serveGET(dropRequest(drop.slug, "/api/serve-drop/"));
    expect(visit.status).toBe(200);
    expect(await visit.text()).toContain("named x");
    await expectError(await deploy(apiKey, "?name=x", "<h1>again</h1>"), 402, "subscription_required");
    await expectError(await deploy(apiKey, "?name=y", "<h1>y</h1>"), 402, "subscription_required");
    // Unnamed deploys still work on free.
    expect((await deploy(apiKey, "", "<h1>plain</h1>")).status).toBe(200);
  });
});

describe("without Stripe configured", () => {
  let bare: TestContext;
  beforeAll(async () => {
    bare = await makeTestContext({});
  });
  afterAll(async () => {
    await bare.close();
    setContext(t.ctx);
  });

  it("checkout and portal answer 503 upstream_unavailable with the self-hosting hint; /billing/me works", async () => {
    const { account, apiKey } = await accountWithKey(bare.ctx);
    for (const res of [await checkout(apiKey), await portal(apiKey)]) {
      const body = await expectError(res, 503, "upstream_unavailable");
      expect(body.hint).toMatch(/not configured on this server/);
      expect(body.hint).toContain("npm run admin -- set-plan");
    }
    const before = stripe.requests.length;
    expect(await me(apiKey)).toEqual({
      accountId: account.id,
      plan: "free",
      activeSubscription: false,
      currentPeriodEnd: null,
      cancelAt: null,
      portalAvailable: false,
    });
    // A plan set by the admin command shows up.
    await setPlan(bare.ctx.db, account.id, "team");
    expect((await me(apiKey)).plan).toBe("team");
    expect(stripe.requests.length).toBe(before);
  });

  it("the webhook answers 503 rather than accepting unverifiable events", async () => {
    const res = await deliver(JSON.stringify(stripeEvent("customer.subscription.created", {})));
    await expectError(res, 503, "upstream_unavailable");
  });
});
