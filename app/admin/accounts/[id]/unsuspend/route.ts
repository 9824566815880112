import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withOperator } from "@/lib/admin/route";
import { unsuspendAccount } from "@/lib/admin/actions";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/admin/accounts/{id}/unsuspend", {
  // POST /admin/accounts/{id}/unsuspend – reverses a suspension
  POST: withOperator(async ({ params, ctx, operator }) => json(await unsuspendAccount(ctx, operator, params.id))),
});
