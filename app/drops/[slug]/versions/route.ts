import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { parseListQuery } from "@/lib/drops/manage";
import { listDropVersions } from "@/lib/drops/versions";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ slug: string }>({
  // GET /drops/{slug}/versions – the drop's retained versions, newest first
  GET: withAccount(async ({ req, params, ctx, caller }) =>
    json(await listDropVersions(ctx, caller.account, params.slug, parseListQuery(new URL(req.url).searchParams))),
  ),
});
