import type { AppContext } from "../context";
import type { AccountRow } from "../db/schema";
import { ApiError, upstreamUnavailable } from "../errors";
import type { CheckoutResponse, PortalResponse } from "../schemas";
import { requireStripe, stripeUnavailable, type PaidPlan, type StripeBilling } from "./stripe";
import { linkCustomer } from "../db/billing";
import { isLiveStatus } from "./subscription";

// Checkout and Customer Portal sessions. One Stripe customer per account, created on the first
// checkout and stored in accounts.stripe_customer_id.

const dashboard = (ctx: AppContext) => `${ctx.env.BASE_URL}/dashboard`;

async function stripeCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw stripeUnavailable(err);
  }
}

/** The account's Stripe customer, created once. Concurrent first checkouts end up with one customer. */
async function ensureCustomer(ctx: AppContext, billing: StripeBilling, account: AccountRow): Promise<string> {
  if (account.stripeCustomerId) return account.stripeCustomerId;
  const customer = await stripeCall(() =>
    billing.client.customers.create(
      { ...(account.email ? { email: account.email } : {}), metadata: { accountId: account.id } },
      // Stripe answers a repeated key with the first result, so a race creates one customer.
      { idempotencyKey: `dropsite-customer-${account.id}` },
    ),
  );
  let stored: string | null;
  try {
    stored = await linkCustomer(ctx.db, account.id, customer.id);
  } catch (err) {
    throw upstreamUnavailable("database", err);
  }
  return stored ?? customer.id;
}

async function portalUrl(ctx: AppContext, billing: StripeBilling, customer: string): Promise<string> {
  const session = await stripeCall(() =>
    billing.client.billingPortal.sessions.create({ customer, return_url: dashboard(ctx) }),
  );
  return session.url;
}

// POST /billing/checkout – a Checkout session for a subscription, or the portal when already subscribed.
export async function startCheckout(ctx: AppContext, account: AccountRow, plan: PaidPlan): Promise<CheckoutResponse> {
  const billing = requireStripe(ctx.env);
  if (account.stripeCustomerId && isLiveStatus(account.subscriptionStatus)) {
    return { url: await portalUrl(ctx, billing, account.stripeCustomerId), alreadySubscribed: true };
  }
  const price = billing.prices[plan];
  if (!price) {
    throw new ApiError("upstream_unavailable", `The ${plan} plan cannot be bought on this server.`, {
      hint: `Billing is configured without a price for ${plan} (STRIPE_PRICE_${plan.toUpperCase()}). Ask the operator, or choose another plan.`,
      docs: "billing",
    });
  }
  const customer = await ensureCustomer(ctx, billing, account);
  const session = await stripeCall(() =>
    billing.client.checkout.sessions.create({
      mode: "subscription",
      customer,
      client_reference_id: account.id,
      line_items: [{ price, quantity: 1 }],
      success_url: `${dashboard(ctx)}?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${dashboard(ctx)}?checkout=cancelled`,
      metadata: { accountId: account.id, plan },
      subscription_data: { metadata: { accountId: account.id, plan } },
      allow_promotion_codes: true,
    }),
  );
  if (!session.url) throw stripeUnavailable(new Error(`checkout session ${session.id} has no url`));
  return { url: session.url, alreadySubscribed: false };
}

// POST /billing/portal – a Customer Portal session to manage or cancel the subscription.
export async function openPortal(ctx: AppContext, account: AccountRow): Promise<PortalResponse> {
  const billing = requireStripe(ctx.env);
  if (!account.stripeCustomerId) {
    throw new ApiError("invalid_request", "This account has no billing profile yet.", {
      hint: "Start a subscription first with POST /billing/checkout; the customer portal manages an existing subscription.",
      docs: "billing",
    });
  }
  return { url: await portalUrl(ctx, billing, account.stripeCustomerId) };
}
