import { json, routes } from "@/lib/http";
import { queryOf, withOperator } from "@/lib/admin/route";
import { adminAudit } from "@/lib/admin/actions";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // GET /admin/audit – the audit log, newest first
  GET: withOperator(async ({ req, ctx }) => json(await adminAudit(ctx, queryOf(req)))),
});
