import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { lazyBody } from "@/lib/teams/access";
import { removeMember, setMemberRole } from "@/lib/teams/members";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/teams/{team}/members/{account}", {
  // PATCH /teams/<team>/members/<account> – set a member's role
  PATCH: withAccount(async ({ req, params, ctx, caller }) =>
    json(await setMemberRole(ctx, caller, params.team, params.account, lazyBody(req))),
  ),
  // DELETE /teams/<team>/members/<account> – remove a member, or leave (the caller's own id)
  DELETE: withAccount(async ({ params, ctx, caller }) =>
    json(await removeMember(ctx, caller, params.team, params.account)),
  ),
});
