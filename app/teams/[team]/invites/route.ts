import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { lazyBody } from "@/lib/teams/access";
import { createInvite, listInvites } from "@/lib/teams/invites";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/teams/{team}/invites", {
  // POST /teams/<team>/invites – a single-use invitation code for a role
  POST: withAccount(async ({ req, params, ctx, caller }) =>
    json(await createInvite(ctx, caller, params.team, lazyBody(req)), 201),
  ),
  // GET /teams/<team>/invites – the invitations that can still be used
  GET: withAccount(async ({ params, ctx, caller }) => json(await listInvites(ctx, caller, params.team))),
});
