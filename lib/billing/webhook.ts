import type Stripe from "stripe";
import type { AppContext } from "../context";
import { ApiError, upstreamUnavailable } from "../errors";
import { readBodyCapped } from "../http";
import { capOf } from "../http-routes";
import { billingNotConfigured, requireStripe, stripeBilling, stripeUnavailable } from "./stripe";
import {
  applyBillingEvent,
  eventSeen,
  type AccountRef,
  type ApplyOutcome,
  type Decision,
  type EventRef,
} from "../db/billing";
import { isLiveStatus, subscriptionDecision } from "./subscription";

// POST /billing/webhook: a Stripe event, verified against STRIPE_WEBHOOK_SECRET, applied once
// (by event id) and in order (by event.created against accounts.billing_event_at).

/** Stripe signs a timestamp; an event older than this is refused (replay window). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;
/** A Stripe event's body cap, from the table of routes that take bodies. */
const MAX_WEBHOOK_BYTES = capOf("/billing/webhook");

export interface WebhookResult {
  received: true;
  type?: string;
  ignored?: boolean;
  duplicate?: boolean;
  stale?: boolean;
  outcome?: ApplyOutcome;
}

/** What an event does: the account it concerns and how it changes it. */
interface Effect {
  ref: AccountRef;
  decide: (account: Parameters<typeof subscriptionDecision>[1]) => Decision;
}

type Handler = (ctx: AppContext, event: Stripe.Event) => Promise<Effect>;

const idOf = (v: string | { id: string } | null | undefined): string | null =>
  v === null || v === undefined ? null : typeof v === "string" ? v : v.id;

// checkout.session.completed – link the customer and apply the subscription it started.
async function onCheckoutCompleted(ctx: AppContext, event: Stripe.Event): Promise<Effect> {
  const session = event.data.object as Stripe.Checkout.Session;
  const customerId = idOf(session.customer);
  const ref = { accountId: session.client_reference_id ?? session.metadata?.accountId ?? null, customerId };
  const subId = idOf(session.subscription);
  if (session.mode !== "subscription" || !subId) return { ref, decide: () => null };
  // The session names the subscription, not its price: fetch its current state.
  const sub =
    typeof session.subscription === "object" && session.subscription
      ? session.subscription
      : await retrieveSubscription(ctx, subId);
  return { ref, decide: (account) => subscriptionDecision(ctx.env, account, sub, customerId) };
}

// customer.subscription.created – a subscription started (possibly before checkout completed).
async function onSubscriptionCreated(ctx: AppContext, event: Stripe.Event): Promise<Effect> {
  return subscriptionEffect(ctx, event.data.object as Stripe.Subscription);
}

// customer.subscription.updated – plan change, renewal, past_due, scheduled cancellation.
async function onSubscriptionUpdated(ctx: AppContext, event: Stripe.Event): Promise<Effect> {
  return subscriptionEffect(ctx, event.data.object as Stripe.Subscription);
}

// customer.subscription.deleted – the subscription ended: back to free.
async function onSubscriptionDeleted(ctx: AppContext, event: Stripe.Event): Promise<Effect> {
  const sub = event.data.object as Stripe.Subscription;
  return subscriptionEffect(ctx, { ...sub, status: "canceled" });
}

// invoice.payment_failed – record past_due on the live subscription; the plan is kept while Stripe retries.
async function onPaymentFailed(_ctx: AppContext, event: Stripe.Event): Promise<Effect> {
  const invoice = event.data.object as Stripe.Invoice;
  const legacy = (invoice as unknown as { subscription?: string | { id: string } | null }).subscription;
  const subId = idOf(invoice.parent?.subscription_details?.subscription ?? legacy);
  return {
    ref: { customerId: idOf(invoice.customer) },
    decide: (account) => {
      if (!account.stripeSubscriptionId || !isLiveStatus(account.subscriptionStatus)) return null;
      if (subId && subId !== account.stripeSubscriptionId) return null;
      return { ordered: true, patch: { subscriptionStatus: "past_due" } };
    },
  };
}

function subscriptionEffect(ctx: AppContext, sub: Stripe.Subscription): Promise<Effect> {
  const customerId = idOf(sub.customer);
  return Promise.resolve({
    ref: { accountId: sub.metadata?.accountId ?? null, customerId },
    decide: (account) => subscriptionDecision(ctx.env, account, sub, null),
  });
}

async function retrieveSubscription(ctx: AppContext, id: string): Promise<Stripe.Subscription> {
  const { client } = requireStripe(ctx.env);
  try {
    return await client.subscriptions.retrieve(id);
  } catch (err) {
    throw stripeUnavailable(err);
  }
}

/** The events this server acts on; anything else is acknowledged and ignored. */
export const webhookHandlers: Record<string, Handler> = {
  "checkout.session.completed": onCheckoutCompleted,
  "customer.subscription.created": onSubscriptionCreated,
  "customer.subscription.updated": onSubscriptionUpdated,
  "customer.subscription.deleted": onSubscriptionDeleted,
  "invoice.payment_failed": onPaymentFailed,
};

function badSignature(reason: string): ApiError {
  return new ApiError("invalid_request", `Webhook signature verification failed: ${reason}`, {
    hint: "Send the raw event body with the Stripe-Signature header Stripe computed with this endpoint's signing secret (STRIPE_WEBHOOK_SECRET).",
  });
}

/** Verifies and applies one webhook delivery. */
export async function handleWebhook(ctx: AppContext, req: Request): Promise<WebhookResult> {
  const billing = stripeBilling(ctx.env);
  if (!billing?.webhookSecret) throw billingNotConfigured("The billing webhook");
  const raw = await readBodyCapped(
    req,
    MAX_WEBHOOK_BYTES,
    () => new ApiError("payload_too_large", `Webhook bodies are limited to ${MAX_WEBHOOK_BYTES / (1024 * 1024)} MB.`),
  );
  const signature = req.headers.get("stripe-signature");
  if (!signature) throw badSignature("the Stripe-Signature header is missing.");
  let event: Stripe.Event;
  try {
    event = billing.client.webhooks.constructEvent(
      Buffer.from(raw),
      signature,
      billing.webhookSecret,
      WEBHOOK_TOLERANCE_SECONDS,
      undefined,
      ctx.now(),
    );
  } catch (err) {
    // The SDK's message runs to a paragraph of advice; its first sentence says what failed.
    const first = err instanceof Error ? /^[^.\n]*\.?/.exec(err.message)?.[0] : undefined;
    throw badSignature(first || "invalid signature.");
  }
  const handler = Object.hasOwn(webhookHandlers, event.type) ? webhookHandlers[event.type] : undefined;
  if (!handler) return { received: true, type: event.type, ignored: true };
  // A replay stops here, before any call to Stripe; applyBillingEvent re-checks inside its transaction.
  if (await db(() => eventSeen(ctx.db, event.id)))
    return { received: true, type: event.type, outcome: "duplicate", duplicate: true };
  const effect = await handler(ctx, event);
  const ref: EventRef = { id: event.id, type: event.type, created: new Date(event.created * 1000) };
  const outcome = await db(() => applyBillingEvent(ctx.db, ref, effect.ref, effect.decide));
  if (outcome === "no_account")
    console.warn(
      `[billing] ${event.type} ${event.id}: no account for customer ${effect.ref.customerId ?? "?"} / account ${effect.ref.accountId ?? "?"}`,
    );
  const result: WebhookResult = { received: true, type: event.type, outcome };
  if (outcome === "duplicate") result.duplicate = true;
  if (outcome === "stale") result.stale = true;
  return result;
}

async function db<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw upstreamUnavailable("database", err);
  }
}
