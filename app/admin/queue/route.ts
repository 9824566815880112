import { json, routes } from "@/lib/http";
import { queryOf, withOperator } from "@/lib/admin/route";
import { adminQueue } from "@/lib/admin/actions";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // GET /admin/queue – drops with open reports or scan flags, most reported first
  GET: withOperator(async ({ req, ctx }) => json(await adminQueue(ctx, queryOf(req)))),
});
