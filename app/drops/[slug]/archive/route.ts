import { routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { archiveVersion } from "@/lib/drops/readback";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ slug: string }>({
  // GET /drops/{slug}/archive – a retained version as a zip, streamed from the store
  GET: withAccount(async ({ req, params, ctx, caller }) =>
    archiveVersion(ctx, caller.account, params.slug, new URL(req.url).searchParams.get("version")),
  ),
});
