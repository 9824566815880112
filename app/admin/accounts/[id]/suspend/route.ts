import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { readOperatorBody, withOperator } from "@/lib/admin/route";
import { suspendAccount } from "@/lib/admin/actions";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/admin/accounts/{id}/suspend", {
  // POST /admin/accounts/{id}/suspend – every drop answers 451, credentials refused, webhooks paused
  POST: withOperator(async ({ req, params, ctx, operator }) =>
    json(await suspendAccount(ctx, operator, params.id, await readOperatorBody(req))),
  ),
});
