import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { getDropViewers } from "@/lib/drops/viewers";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ slug: string }>({
  // GET /drops/{slug}/viewers – who signed in to an emails-only drop, and their views
  GET: withAccount(async ({ params, ctx, caller }) => json(await getDropViewers(ctx, caller.account, params.slug))),
});
