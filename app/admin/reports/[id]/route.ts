import { json, routes } from "@/lib/http";
import { withOperator } from "@/lib/admin/route";
import { adminReport } from "@/lib/admin/actions";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ id: string }>({
  // GET /admin/reports/{id} – one report
  GET: withOperator(async ({ params, ctx }) => json(await adminReport(ctx, params.id))),
});
