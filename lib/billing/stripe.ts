import Stripe from "stripe";
import type { Env } from "../env";
import { ApiError, upstreamUnavailable } from "../errors";
import type { Plan } from "../plans";

// The Stripe client, built from configuration. Billing is on only when STRIPE_SECRET_KEY is set;
// STRIPE_API_BASE points the real SDK at another host (tests run a local stand-in there).

export type PaidPlan = Exclude<Plan, "free">;

export interface StripeBilling {
  client: Stripe;
  /** Price id of each paid plan; a plan without a price cannot be bought here. */
  prices: Partial<Record<PaidPlan, string>>;
  webhookSecret?: string;
}

const clients = new Map<string, Stripe>();

function connection(base: string | undefined): { host?: string; port?: number; protocol?: "http" | "https" } {
  if (!base) return {};
  const u = new URL(base);
  const protocol = u.protocol === "http:" ? "http" : "https";
  return { host: u.hostname, port: u.port ? Number(u.port) : protocol === "http" ? 80 : 443, protocol };
}

/** The Stripe client for this configuration, or null when billing is not configured. */
export function stripeBilling(e: Env): StripeBilling | null {
  if (!e.STRIPE_SECRET_KEY) return null;
  const cacheKey = `${e.STRIPE_SECRET_KEY}\n${e.STRIPE_API_BASE ?? ""}`;
  let client = clients.get(cacheKey);
  if (!client) {
    client = new Stripe(e.STRIPE_SECRET_KEY, {
      ...connection(e.STRIPE_API_BASE),
      maxNetworkRetries: 2,
      timeout: 20_000,
      telemetry: false,
      appInfo: { name: "dropsite" },
    });
    clients.set(cacheKey, client);
  }
  const prices: Partial<Record<PaidPlan, string>> = {};
  if (e.STRIPE_PRICE_PRO) prices.pro = e.STRIPE_PRICE_PRO;
  if (e.STRIPE_PRICE_TEAM) prices.team = e.STRIPE_PRICE_TEAM;
  return { client, prices, webhookSecret: e.STRIPE_WEBHOOK_SECRET };
}

const SELF_HOST_HINT =
  "Billing is not configured on this server (STRIPE_SECRET_KEY, STRIPE_PRICE_PRO, STRIPE_PRICE_TEAM and STRIPE_WEBHOOK_SECRET are unset). " +
  "If you run this server yourself, set an account's plan with: npm run admin -- set-plan <accountId|email> <free|pro|team>";

/** 503 for billing calls on a server without Stripe. */
export function billingNotConfigured(what = "Billing"): ApiError {
  // Every 503 carries Retry-After; this one will not change soon, so the hint matters more.
  return new ApiError("upstream_unavailable", `${what} is not available on this server.`, {
    hint: SELF_HOST_HINT,
    docs: "billing",
    headers: { "Retry-After": "3600" },
  });
}

/** The configured Stripe billing, or 503 with the self-hosting hint. */
export function requireStripe(e: Env): StripeBilling {
  const billing = stripeBilling(e);
  if (!billing) throw billingNotConfigured();
  return billing;
}

/** The plan a Stripe price id buys; null for prices this server does not sell. */
export function planForPrice(e: Env, priceId: string | null | undefined): PaidPlan | null {
  if (!priceId) return null;
  if (e.STRIPE_PRICE_TEAM && priceId === e.STRIPE_PRICE_TEAM) return "team";
  if (e.STRIPE_PRICE_PRO && priceId === e.STRIPE_PRICE_PRO) return "pro";
  return null;
}

/** A failed Stripe API call: 503 for the caller, the cause logged by the error renderer's caller. */
export function stripeUnavailable(err: unknown): ApiError {
  console.error("[stripe]", err instanceof Error ? err.message : err);
  return upstreamUnavailable("payment provider", err);
}
