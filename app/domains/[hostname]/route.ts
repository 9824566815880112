import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { deleteDomain } from "@/lib/domains/manage";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ hostname: string }>({
  // DELETE /domains/{hostname} – stop serving a drop at a custom domain
  DELETE: withAccount(async ({ params, ctx, caller }) =>
    json(await deleteDomain(ctx, caller.account, params.hostname)),
  ),
});
