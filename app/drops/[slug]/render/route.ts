import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { latestRender, renderOwnedDrop } from "@/lib/render/service";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/drops/{slug}/render", {
  // GET /drops/{slug}/render – the drop's latest render check (404 before any)
  GET: withAccount(async ({ params, ctx, caller }) => json(await latestRender(ctx, caller.account, params.slug))),
  // POST /drops/{slug}/render – check the live version in a real browser now (synchronous)
  POST: withAccount(async ({ params, ctx, caller }) =>
    json((await renderOwnedDrop(ctx, caller.account, params.slug)).render),
  ),
});
