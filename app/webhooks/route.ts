import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { createWebhook, listWebhooks, readWebhookBody } from "@/lib/webhooks/manage";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/webhooks", {
  // POST /webhooks – add a webhook (its secret is shown once)
  POST: withAccount(async ({ req, ctx, caller }) =>
    json(await createWebhook(ctx, caller.account, await readWebhookBody(req)), 201),
  ),
  // GET /webhooks – the account's webhooks
  GET: withAccount(async ({ ctx, caller }) => json(await listWebhooks(ctx, caller.account))),
});
