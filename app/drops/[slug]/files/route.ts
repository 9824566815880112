import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { listVersionFiles } from "@/lib/drops/readback";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ slug: string }>({
  // GET /drops/{slug}/files – every file of a retained version (the live one by default)
  GET: withAccount(async ({ req, params, ctx, caller }) =>
    json(await listVersionFiles(ctx, caller.account, params.slug, new URL(req.url).searchParams.get("version"))),
  ),
});
