import { json, readJson } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { createCommentBodySchema } from "@/lib/schemas";
import { createComment, listComments, parseCommentsQuery } from "@/lib/review/comments";
import { withReviewer } from "@/lib/review/route";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/drops/{slug}/comments", {
  // GET /drops/{slug}/comments – threads by status, version and page (open first)
  GET: withReviewer(async ({ req, ctx, reviewer }) =>
    json(await listComments(ctx, reviewer, parseCommentsQuery(new URL(req.url).searchParams))),
  ),
  // POST /drops/{slug}/comments – start a thread (pinned or page-level)
  POST: withReviewer(async ({ req, ctx, reviewer }) =>
    json(await createComment(ctx, req, reviewer, await readJson(req, createCommentBodySchema)), 201),
  ),
});
