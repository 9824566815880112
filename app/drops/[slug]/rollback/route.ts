import { json, readJson } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { rollbackBodySchema } from "@/lib/schemas";
import { rollbackToVersion } from "@/lib/drops/versions";
import { idempotent } from "@/lib/idempotency";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/drops/{slug}/rollback", {
  // POST /drops/{slug}/rollback – make a retained version of the drop live (Idempotency-Key honoured)
  POST: idempotent(
    withAccount(async ({ req, params, ctx, caller }) =>
      json(
        await rollbackToVersion(ctx, caller.account, params.slug, (await readJson(req, rollbackBodySchema)).version),
      ),
    ),
  ),
});
