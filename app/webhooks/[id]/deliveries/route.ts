import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { webhookDeliveries } from "@/lib/webhooks/manage";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ id: string }>({
  // GET /webhooks/<id>/deliveries – the webhook's latest delivery attempts
  GET: withAccount(async ({ params, ctx, caller }) => json(await webhookDeliveries(ctx, caller.account, params.id))),
});
