import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { readOperatorBody, withOperator } from "@/lib/admin/route";
import { resolveReport } from "@/lib/admin/actions";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/admin/reports/{id}/resolve", {
  // POST /admin/reports/{id}/resolve – resolve every open report of the drop: dismissed, disabled or deleted
  POST: withOperator(async ({ req, params, ctx, operator }) =>
    json(await resolveReport(ctx, operator, params.id, await readOperatorBody(req))),
  ),
});
