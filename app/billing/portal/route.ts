import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { openPortal } from "@/lib/billing/checkout";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/billing/portal", {
  // POST /billing/portal – a Stripe Customer Portal session
  POST: withAccount(async ({ ctx, caller }) => json(await openPortal(ctx, caller.account))),
});
