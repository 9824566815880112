import { routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { revokeDropReviewLink } from "@/lib/review/links";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ slug: string; id: string }>({
  // DELETE /drops/{slug}/review-links/{id} – revoke a review link at once
  DELETE: withAccount(async ({ params, ctx, caller }) => {
    await revokeDropReviewLink(ctx, caller.account, params.slug, params.id);
    return new Response(null, { status: 204 });
  }),
});
