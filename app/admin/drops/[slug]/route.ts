import { json, routes } from "@/lib/http";
import { withOperator } from "@/lib/admin/route";
import { deleteDropAsOperator } from "@/lib/admin/actions";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ slug: string }>({
  // DELETE /admin/drops/{slug} – delete a drop with its bytes and purge, as the owner's delete does
  DELETE: withOperator(async ({ params, ctx, operator }) =>
    json(await deleteDropAsOperator(ctx, operator, params.slug)),
  ),
});
