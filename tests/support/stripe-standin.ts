import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";

// A local HTTP stand-in of the part of the Stripe API this service calls (stripe-mock cannot be
// installed here). The real `stripe` SDK is pointed at it with host/port/protocol: it sends
// form-encoded bodies with a Bearer secret key, and reads Stripe-shaped JSON and errors back.
// Every request is recorded for assertions.

export interface RecordedRequest {
  method: string;
  path: string;
  /** The form body, decoded into nested objects (a[0][b]=c → {a: [{b: "c"}]}). */
  body: Record<string, unknown>;
  idempotencyKey: string | null;
  stripeVersion: string | null;
}

export interface StandinSubscription {
  id: string;
  object: "subscription";
  customer: string;
  status: string;
  cancel_at: number | null;
  cancel_at_period_end: boolean;
  canceled_at: number | null;
  created: number;
  metadata: Record<string, string>;
  items: {
    object: "list";
    data: {
      id: string;
      object: "subscription_item";
      price: { id: string; object: "price" };
      quantity: number;
      current_period_start: number;
      current_period_end: number;
    }[];
  };
}

export interface StripeStandin {
  /** e.g. http://127.0.0.1:41234 — the value of STRIPE_API_BASE. */
  url: string;
  secretKey: string;
  requests: RecordedRequest[];
  /** Ids of the customers the stand-in created, in order. */
  customerIds(): string[];
  /** Requests to one path (and method). */
  requestsTo(path: string, method?: string): RecordedRequest[];
  /** Stores a subscription that GET /v1/subscriptions/:id returns, and returns it (for event payloads). */
  putSubscription(s: {
    id?: string;
    customer: string;
    price: string;
    status?: string;
    periodEnd?: number;
    cancelAt?: number | null;
    metadata?: Record<string, string>;
  }): StandinSubscription;
  /** The next `count` API calls answer this Stripe error instead. */
  failNext(count: number, status?: number, type?: string): void;
  close(): Promise<void>;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;

/** Decodes Stripe's form encoding (qs-style brackets) into nested objects and arrays. */
export function decodeForm(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const parts = rawKey.split(/\[|\]\[|\]/).filter((p, i) => p !== "" || i === 0);
    let node: Record<string, unknown> = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Record<string, unknown>;
    });
  }
  const arrays = (v: unknown): unknown => {
    if (v === null || typeof v !== "object") return v;
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length > 0 && keys.every((k, i) => k === String(i))) return keys.map((k) => arrays(o[k]));
    return Object.fromEntries(keys.map((k) => [k, arrays(o[k])]));
  };
  return arrays(root) as Record<string, unknown>;
}

export async function startStripeStandin(
  secretKey = `sk_test_${randomBytes(12).toString("hex")}`,
): Promise<StripeStandin> {
  const requests: RecordedRequest[] = [];
  const subscriptions = new Map<string, StandinSubscription>();
  const customers = new Map<string, Record<string, unknown>>();
  const idempotent = new Map<string, { status: number; body: unknown }>();
  let failures: { count: number; status: number; type: string } = {
    count: 0,
    status: 400,
    type: "invalid_request_error",
  };

  const stripeError = (status: number, type: string, message: string, code?: string) => ({
    status,
    body: { error: { type, message, ...(code ? { code } : {}) } },
  });

  function route(method: string, path: string, body: Record<string, unknown>): { status: number; body: unknown } {
    const now = Math.floor(Date.now() / 1000);
    if (method === "POST" && path === "/v1/customers") {
      const customer = {
        id: id("cus"),
        object: "customer",
        created: now,
        email: body.email ?? null,
        metadata: body.metadata ?? {},
        livemode: false,
      };
      customers.set(customer.id, customer);
      return { status: 200, body: customer };
    }
    if (method === "POST" && path === "/v1/checkout/sessions") {
      if (typeof body.customer === "string" && !customers.has(body.customer))
        return stripeError(400, "invalid_request_error", `No such customer: '${body.customer}'`, "resource_missing");
      const sid = id("cs_test");
      return {
        status: 200,
        body: {
          id: sid,
          object: "checkout.session",
          mode: body.mode,
          customer: body.customer ?? null,
          client_reference_id: body.client_reference_id ?? null,
          metadata: body.metadata ?? {},
          success_url: body.success_url,
          cancel_url: body.cancel_url,
          status: "open",
          payment_status: "unpaid",
          subscription: null,
          url: `https://checkout.stripe.test/c/pay/${sid}`,
          livemode: false,
        },
      };
    }
    if (method === "POST" && path === "/v1/billing_portal/sessions") {
      if (typeof body.customer !== "string" || !customers.has(body.customer))
        return stripeError(
          400,
          "invalid_request_error",
          `No such customer: '${String(body.customer)}'`,
          "resource_missing",
        );
      const pid = id("bps");
      return {
        status: 200,
        body: {
          id: pid,
          object: "billing_portal.session",
          customer: body.customer,
          return_url: body.return_url ?? null,
          url: `https://billing.stripe.test/p/session/${pid}`,
          livemode: false,
        },
      };
    }
    const sub = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
    if (method === "GET" && sub) {
      const found = subscriptions.get(decodeURIComponent(sub[1]!));
      return found
        ? { status: 200, body: found }
        : stripeError(404, "invalid_request_error", `No such subscription: '${sub[1]}'`, "resource_missing");
    }
    return stripeError(404, "invalid_request_error", `Unrecognized request URL (${method}: ${path}).`);
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? "/", "http://standin");
    const raw = Buffer.concat(chunks).toString("utf8");
    const body = decodeForm(req.method === "GET" ? url.search.slice(1) : raw);
    const idempotencyKey = (req.headers["idempotency-key"] as string | undefined) ?? null;
    requests.push({
      method: req.method ?? "",
      path: url.pathname,
      body,
      idempotencyKey,
      stripeVersion: (req.headers["stripe-version"] as string | undefined) ?? null,
    });
    let out: { status: number; body: unknown };
    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      out = stripeError(401, "authentication_error", "Invalid API Key provided.");
    } else if (failures.count > 0) {
      failures.count--;
      out = stripeError(failures.status, failures.type, "Injected failure of the stand-in.");
    } else if (idempotencyKey && idempotent.has(`${url.pathname} ${idempotencyKey}`)) {
      out = idempotent.get(`${url.pathname} ${idempotencyKey}`)!;
    } else {
      out = route(req.method ?? "", url.pathname, body);
      if (idempotencyKey && req.method === "POST") idempotent.set(`${url.pathname} ${idempotencyKey}`, out);
    }
    res.writeHead(out.status, { "content-type": "application/json", "request-id": id("req") });
    res.end(JSON.stringify(out.body));
  }

  const server: Server = createServer((req, res) => {
    onRequest(req, res).catch((err: unknown) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { type: "api_error", message: String(err) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    secretKey,
    requests,
    customerIds: () => [...customers.keys()],
    requestsTo: (path, method) =>
      requests.filter((r) => r.path === path && (method === undefined || r.method === method)),
    putSubscription(s) {
      const now = Math.floor(Date.now() / 1000);
      const periodEnd = s.periodEnd ?? now + 30 * 86_400;
      const sub: StandinSubscription = {
        id: s.id ?? id("sub"),
        object: "subscription",
        customer: s.customer,
        status: s.status ?? "active",
        cancel_at: s.cancelAt ?? null,
        cancel_at_period_end: false,
        canceled_at: null,
        created: now,
        metadata: s.metadata ?? {},
        items: {
          object: "list",
          data: [
            {
              id: id("si"),
              object: "subscription_item",
              price: { id: s.price, object: "price" },
              quantity: 1,
              current_period_start: periodEnd - 30 * 86_400,
              current_period_end: periodEnd,
            },
          ],
        },
      };
      subscriptions.set(sub.id, sub);
      return sub;
    },
    failNext(count, status = 400, type = "invalid_request_error") {
      failures = { count, status, type };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
