import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { listDrops, parseListQuery } from "@/lib/drops/manage";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // GET /drops – the caller's drops, newest first
  GET: withAccount(async ({ req, ctx, caller }) =>
    json(await listDrops(ctx, caller.account, parseListQuery(new URL(req.url).searchParams))),
  ),
});
