import { getContext } from "@/lib/context";
import { requireCronSecret } from "@/lib/auth/cron";
import { json, routes } from "@/lib/http";
import { runCleanup } from "@/lib/drops/lifecycle";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // GET /cron/cleanup – purge expired drops (Vercel Cron, Bearer CRON_SECRET)
  GET: async (req) => {
    const ctx = await getContext();
    requireCronSecret(ctx, req, "cleanup");
    return json(await runCleanup(ctx));
  },
});
