import { json, readJson } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { replyBodySchema } from "@/lib/schemas";
import { replyToComment } from "@/lib/review/comments";
import { withReviewer } from "@/lib/review/route";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/drops/{slug}/comments/{id}/replies", {
  // POST /drops/{slug}/comments/{id}/replies – reply to a thread
  POST: withReviewer(async ({ req, params, ctx, reviewer }) =>
    json(await replyToComment(ctx, req, reviewer, params.id, await readJson(req, replyBodySchema)), 201),
  ),
});
