import { json, readJson } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { aliasBodySchema } from "@/lib/schemas";
import { deleteDropAlias, setDropAlias } from "@/lib/drops/aliases";
import { idempotent } from "@/lib/idempotency";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/drops/{slug}/aliases/{name}", {
  // PUT /drops/{slug}/aliases/{name} – create or move an alias (Idempotency-Key honoured)
  PUT: idempotent(
    withAccount(async ({ req, params, ctx, caller }) =>
      json(
        await setDropAlias(
          ctx,
          caller.account,
          params.slug,
          params.name,
          (await readJson(req, aliasBodySchema)).version,
        ),
      ),
    ),
  ),
  // DELETE /drops/{slug}/aliases/{name} – delete an alias (Idempotency-Key honoured)
  DELETE: idempotent(
    withAccount(async ({ params, ctx, caller }) => {
      await deleteDropAlias(ctx, caller.account, params.slug, params.name);
      return new Response(null, { status: 204 });
    }),
  ),
});
