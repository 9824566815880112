import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { revokeInvite } from "@/lib/teams/invites";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ team: string; id: string }>({
  // DELETE /teams/<team>/invites/<id> – revoke an invitation
  DELETE: withAccount(async ({ params, ctx, caller }) => json(await revokeInvite(ctx, caller, params.team, params.id))),
});
