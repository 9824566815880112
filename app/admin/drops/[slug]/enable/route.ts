import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withOperator } from "@/lib/admin/route";
import { enableDrop } from "@/lib/admin/actions";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/admin/drops/{slug}/enable", {
  // POST /admin/drops/{slug}/enable – the drop serves again
  POST: withOperator(async ({ params, ctx, operator }) => json(await enableDrop(ctx, operator, params.slug))),
});
