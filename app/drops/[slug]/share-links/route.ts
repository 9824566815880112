import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { createShareLink, listShareLinks, readShareLinkBody } from "@/lib/drops/share-links";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/drops/{slug}/share-links", {
  // POST /drops/{slug}/share-links – a link that opens a password or emails drop until it expires
  POST: withAccount(async ({ req, params, ctx, caller }) =>
    json(await createShareLink(ctx, caller.account, params.slug, await readShareLinkBody(req)), 201),
  ),
  // GET /drops/{slug}/share-links – the links that still work
  GET: withAccount(async ({ params, ctx, caller }) => json(await listShareLinks(ctx, caller.account, params.slug))),
});
