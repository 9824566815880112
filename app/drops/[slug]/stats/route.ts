import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { getDropStats } from "@/lib/stats/read";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ slug: string }>({
  // GET /drops/{slug}/stats – the drop's counts per day, within the plan's retention
  GET: withAccount(async ({ req, params, ctx, caller }) => {
    const q = new URL(req.url).searchParams;
    return json(await getDropStats(ctx, caller.account, params.slug, { from: q.get("from"), to: q.get("to") }));
  }),
});
