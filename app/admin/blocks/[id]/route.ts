import { json, routes } from "@/lib/http";
import { withOperator } from "@/lib/admin/route";
import { removeBlock } from "@/lib/admin/actions";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ id: string }>({
  // DELETE /admin/blocks/{id} – lift a block
  DELETE: withOperator(async ({ params, ctx, operator }) => json(await removeBlock(ctx, operator, params.id))),
});
