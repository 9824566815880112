import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { removeWebhook } from "@/lib/webhooks/manage";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ id: string }>({
  // DELETE /webhooks/<id> – remove a webhook (its queued deliveries and log go with it)
  DELETE: withAccount(async ({ params, ctx, caller }) => json(await removeWebhook(ctx, caller.account, params.id))),
});
