import { json, readJson } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { startCheckout } from "@/lib/billing/checkout";
import { checkoutBodySchema } from "@/lib/schemas";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/billing/checkout", {
  // POST /billing/checkout – a Stripe Checkout session for pro or team (portal when already subscribed)
  POST: withAccount(async ({ req, ctx, caller }) => {
    const { plan } = await readJson(req, checkoutBodySchema, { optional: true });
    return json(await startCheckout(ctx, caller.account, plan));
  }),
});
