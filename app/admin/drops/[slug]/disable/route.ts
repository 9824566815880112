import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { readOperatorBody, withOperator } from "@/lib/admin/route";
import { disableDrop } from "@/lib/admin/actions";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/admin/drops/{slug}/disable", {
  // POST /admin/drops/{slug}/disable – the drop answers 451 everywhere
  POST: withOperator(async ({ req, params, ctx, operator }) =>
    json(await disableDrop(ctx, operator, params.slug, await readOperatorBody(req))),
  ),
});
