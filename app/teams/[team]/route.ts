import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { deleteTeamWithHoldings } from "@/lib/drops/team-delete";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ team: string }>({
  // DELETE /teams/<team> – delete the team (owners)
  DELETE: withAccount(async ({ params, ctx, caller }) => json(await deleteTeamWithHoldings(ctx, caller, params.team))),
});
