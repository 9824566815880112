import { json, readJson } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { commentStatusBodySchema } from "@/lib/schemas";
import { setCommentStatus } from "@/lib/review/comments";
import { withReviewer } from "@/lib/review/route";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/drops/{slug}/comments/{id}", {
  // PATCH /drops/{slug}/comments/{id} – resolve or reopen a thread (members and up)
  PATCH: withReviewer(async ({ req, params, ctx, reviewer }) =>
    json(await setCommentStatus(ctx, reviewer, params.id, (await readJson(req, commentStatusBodySchema)).status)),
  ),
});
