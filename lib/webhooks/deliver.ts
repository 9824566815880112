import type { Span } from "@opentelemetry/api";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { Webhook } from "standardwebhooks";
import type { AppContext } from "../context";
import { prefixedId } from "../ids";
import { claimDueDeliveries, countPendingDeliveries, finishAttempt, type ClaimedDelivery } from "../db/webhooks";
import { metrics } from "../metrics/registry";
import { inSpan, spanContextOf } from "../tracing";
import { dropUrl } from "../env";
import { WEBHOOK_POLL_SECONDS, WEBHOOK_RETRY_SECONDS, WEBHOOK_TIMEOUT_SECONDS } from "../plans";
import { resolveTarget, urlProblem, type Resolved } from "./address";
import { openSecret } from "./secret";

// Delivery of the outbox (docs/webhooks.md). A worker claims due deliveries (FOR UPDATE SKIP
// LOCKED, so two workers never start the same attempt), POSTs each event signed by the Standard
// Webhooks scheme, and records the outcome: delivered on a 2xx, otherwise due again after the
// next step of WEBHOOK_RETRY_SECONDS (failed for good after the last). Self-hosted the app
// process runs it every WEBHOOK_POLL_SECONDS (startWebhookWorker); on Vercel GET /cron/webhooks.
// Nothing here runs inside a write's request: a slow receiver delays only its own delivery.

/** A claimed attempt is another worker's again after this long (beyond the request timeout). */
const LEASE_SECONDS = WEBHOOK_TIMEOUT_SECONDS * 3;
/** Deliveries one pass claims, and attempts it runs at once. */
const BATCH = 20;
/** Bytes of a receiver's answer read (and dropped) before the connection is closed. */
const RESPONSE_BYTES = 64 * 1024;

/** The JSON body of an event: {id, type, created_at, data: {slug, url, version?, ...}}. */
export function eventBody(ctx: AppContext, event: ClaimedDelivery["event"]): string {
  const { slug, ...rest } = event.data as { slug?: unknown };
  const data = typeof slug === "string" ? { slug, url: dropUrl(slug, ctx.env), ...rest } : rest;
  return JSON.stringify({ id: event.id, type: event.type, created_at: event.createdAt.toISOString(), data });
}

type Outcome = { statusCode: number | null; error: string | null };

/** POSTs to the address that was checked (never a second lookup), giving up after the timeout. */
function post(url: URL, target: Resolved, headers: Record<string, string>, body: string): Promise<Outcome> {
  const lookup: LookupFunction = (_host, opts, cb) => {
    if ((opts as { all?: boolean }).all) cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const done = (o: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(o);
    };
    const req = send(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        lookup,
        agent: false,
      },
      (res: IncomingMessage) => {
        let read = 0;
        const status = res.statusCode ?? 0;
        const finish = () =>
          done({ statusCode: status, error: status >= 200 && status < 300 ? null : `the receiver answered ${status}` });
        res.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > RESPONSE_BYTES) finish();
        });
        res.on("end", finish);
        res.on("error", finish);
      },
    );
    const timer = setTimeout(
      () => done({ statusCode: null, error: `no answer within ${WEBHOOK_TIMEOUT_SECONDS} seconds` }),
      WEBHOOK_TIMEOUT_SECONDS * 1000,
    );
    req.on("error", (err) => done({ statusCode: null, error: `network error: ${err.message}` }));
    req.end(body);
  });
}

/**
 * The headers of one signed delivery. The signature and webhook-timestamp come from the one
 * instant given (the wall clock: receivers compare it with theirs); read twice, a second's tick
 * between the reads made a signature no receiver could verify.
 */
export function signedHeaders(secret: string, eventId: string, at: Date, body: string): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": "dropsite-webhooks/1",
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(secret).sign(eventId, at, body),
  };
}

/** One attempt of one delivery: checks the target again, signs, sends, records (and notes the outcome on its span). */
async function attempt(ctx: AppContext, d: ClaimedDelivery, span: Span | undefined): Promise<boolean> {
  let outcome: Outcome;
  try {
    const allowPrivate = ctx.env.WEBHOOKS_ALLOW_PRIVATE;
    const problem = urlProblem(d.webhook.url, allowPrivate);
    if (problem) throw new Error(`refused: ${problem}`);
    const url = new URL(d.webhook.url);
    const target = await resolveTarget(url, allowPrivate).catch((err: unknown) => {
      throw new Error(`refused: ${err instanceof Error ? err.message : String(err)}`);
    });
    const body = eventBody(ctx, d.event);
    outcome = await post(
      url,
      target,
      signedHeaders(openSecret(d.webhook.secretSealed, d.webhook.id, ctx.env), d.event.id, new Date(), body),
      body,
    );
  } catch (err) {
    outcome = { statusCode: null, error: err instanceof Error ? err.message : String(err) };
  }
  const now = ctx.now();
  const delivered = outcome.error === null;
  const result = delivered ? "ok" : outcome.error?.startsWith("refused:") ? "refused" : "error";
  metrics().webhookDeliveries.inc({ outcome: result });
  span?.setAttribute("dropsite.webhook.outcome", result);
  if (outcome.statusCode !== null) span?.setAttribute("http.response.status_code", outcome.statusCode);
  if (!delivered) span?.setStatus({ code: 2 /* SpanStatusCode.ERROR */, message: outcome.error ?? undefined });
  const wait = WEBHOOK_RETRY_SECONDS[d.attempt - 1];
  await finishAttempt(
    ctx.db,
    {
      webhookId: d.webhook.id,
      eventId: d.event.id,
      type: d.event.type,
      attempt: d.attempt,
      statusCode: outcome.statusCode,
      error: outcome.error,
      at: new Date(now),
      logId: prefixedId("att"),
    },
    delivered
      ? { delivered: true }
      : { delivered: false, retryAt: wait === undefined ? null : new Date(now + wait * 1000) },
  );
  return delivered;
}

export interface DeliveryPass {
  attempted: number;
  delivered: number;
}

/**
 * Runs every due delivery once (in batches, until none is due or `budgetMs` has passed): the
 * self-hosted worker's tick, GET /cron/webhooks and the pass after a response. Each delivery's
 * span links to the request that recorded its event (the traceparent kept with the event),
 * whichever of them delivers it.
 */
export async function deliverDue(ctx: AppContext, budgetMs = 50_000): Promise<DeliveryPass> {
  const started = Date.now();
  const pass = { attempted: 0, delivered: 0 };
  while (Date.now() - started < budgetMs) {
    const now = ctx.now();
    const claimed = await claimDueDeliveries(ctx.db, new Date(now), new Date(now + LEASE_SECONDS * 1000), BATCH);
    if (claimed.length === 0) break;
    // Each attempt is a trace of its own (webhook.deliver), not a child of whatever ran the pass,
    // linked to the request that recorded its event when that request was traced.
    const results = await Promise.all(
      claimed.map((d) => {
        const cause = spanContextOf(d.event.traceParent);
        return inSpan(
          "webhook.deliver",
          {
            "dropsite.webhook.event_type": d.event.type,
            "dropsite.webhook.event_id": d.event.id,
            "dropsite.webhook.id": d.webhook.id,
            "dropsite.webhook.attempt": d.attempt,
          },
          (span) => attempt(ctx, d, span),
          { root: true, links: cause && [cause] },
        );
      }),
    );
    pass.attempted += results.length;
    pass.delivered += results.filter(Boolean).length;
  }
  metrics().webhookPending.set(await countPendingDeliveries(ctx.db));
  return pass;
}

/**
 * The self-hosted delivery worker: a pass every WEBHOOK_POLL_SECONDS, never two at once in this
 * process (other instances are kept off the same rows by the claim). Returns its stop function.
 */
export function startWebhookWorker(ctx: AppContext): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    deliverDue(ctx)
      .catch((err: unknown) =>
        console.error("[webhooks] delivery pass failed:", err instanceof Error ? err.message : err),
      )
      .finally(() => {
        running = false;
      });
  }, WEBHOOK_POLL_SECONDS * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
