import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { readOperatorBody, withOperator } from "@/lib/admin/route";
import { addBlock, adminBlocks } from "@/lib/admin/actions";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/admin/blocks", {
  // POST /admin/blocks – refuse anonymous deploys, preflights and reports from a range
  POST: withOperator(async ({ req, ctx, operator }) =>
    json(await addBlock(ctx, operator, await readOperatorBody(req)), 201),
  ),
  // GET /admin/blocks – the blocks in force
  GET: withOperator(async ({ ctx }) => json(await adminBlocks(ctx))),
});
