import { routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { deleteShareLink } from "@/lib/drops/share-links";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ slug: string; id: string }>({
  // DELETE /drops/{slug}/share-links/{id} – revoke a share link (its cookies stop at once)
  DELETE: withAccount(async ({ params, ctx, caller }) => {
    await deleteShareLink(ctx, caller.account, params.slug, params.id);
    return new Response(null, { status: 204 });
  }),
});
