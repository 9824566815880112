import { getContext } from "@/lib/context";
import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { handleWebhook } from "@/lib/billing/webhook";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/billing/webhook", {
  // POST /billing/webhook – Stripe events; authenticated by the Stripe-Signature header, not a credential
  POST: async (req) => json(await handleWebhook(await getContext(), req)),
});
