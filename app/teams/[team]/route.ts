import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { deleteTeam } from "@/lib/teams/teams";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ team: string }>({
  // DELETE /teams/<team> – delete the team (owners)
  DELETE: withAccount(async ({ params, ctx, caller }) => json(await deleteTeam(ctx, caller, params.team))),
});
