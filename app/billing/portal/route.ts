import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { openPortal } from "@/lib/billing/checkout";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // POST /billing/portal – a Stripe Customer Portal session
  POST: withAccount(async ({ ctx, caller }) => json(await openPortal(ctx, caller.account))),
});
