import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { withAccount } from "@/lib/auth/route";
import { lazyBody } from "@/lib/teams/access";
import { createTeam, listTeams } from "@/lib/teams/teams";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/teams", {
  // POST /teams – create a team (Team plan); the caller is its first owner
  POST: withAccount(async ({ req, ctx, caller }) => json(await createTeam(ctx, caller, lazyBody(req)), 201)),
  // GET /teams – the caller's teams with their role
  GET: withAccount(async ({ ctx, caller }) => json(await listTeams(ctx, caller))),
});
