import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { listDropAliases } from "@/lib/drops/aliases";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ slug: string }>({
  // GET /drops/{slug}/aliases – the drop's aliases by name
  GET: withAccount(async ({ params, ctx, caller }) => json(await listDropAliases(ctx, caller.account, params.slug))),
});
