import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { deleteDrop, getDrop } from "@/lib/drops/manage";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ slug: string }>({
  // GET /drops/{slug} – one drop of the account with its live version's files and access mode (what get_drop returns)
  GET: withAccount(async ({ params, ctx, caller }) => json(await getDrop(ctx, caller.account, params.slug))),
  // DELETE /drops/{slug} – delete a drop and purge its bytes
  DELETE: withAccount(async ({ params, ctx, caller }) => json(await deleteDrop(ctx, caller.account, params.slug))),
});
