import { json, readJson } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { createReviewLinkBodySchema } from "@/lib/schemas";
import { createReviewLink, listDropReviewLinks } from "@/lib/review/links";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/drops/{slug}/review-links", {
  // GET /drops/{slug}/review-links – the drop's usable review links (tokens are never shown again)
  GET: withAccount(async ({ params, ctx, caller }) =>
    json(await listDropReviewLinks(ctx, caller.account, params.slug)),
  ),
  // POST /drops/{slug}/review-links – mint a review link (its token shown once)
  POST: withAccount(async ({ req, params, ctx, caller }) =>
    json(
      await createReviewLink(
        ctx,
        caller.account,
        caller.actor,
        params.slug,
        await readJson(req, createReviewLinkBodySchema, { optional: true }),
      ),
      201,
    ),
  ),
});
