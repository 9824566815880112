import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { lazyBody } from "@/lib/teams/access";
import { joinTeam } from "@/lib/teams/invites";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/teams/join", {
  // POST /teams/join – join a team with an invitation's code
  POST: withAccount(async ({ req, ctx, caller }) => json(await joinTeam(ctx, caller, lazyBody(req)))),
});
