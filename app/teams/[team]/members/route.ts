import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { teamMembers } from "@/lib/teams/members";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ team: string }>({
  // GET /teams/<team>/members – the members with their roles
  GET: withAccount(async ({ params, ctx, caller }) => json(await teamMembers(ctx, caller, params.team))),
});
