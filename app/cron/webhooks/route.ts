import { getContext } from "@/lib/context";
import { requireCronSecret } from "@/lib/auth/cron";
import { json, routes } from "@/lib/http";
import { deliverDue } from "@/lib/webhooks/deliver";

export const dynamic = "force-dynamic";
export const maxDuration = 60;

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // GET /cron/webhooks – deliver due webhook events (Vercel Cron, Bearer CRON_SECRET)
  GET: async (req) => {
    const ctx = await getContext();
    requireCronSecret(ctx, req, "webhook delivery");
    return json(await deliverDue(ctx, 45_000));
  },
});
