import { json, routes } from "@/lib/http";
import { withAccount } from "@/lib/auth/route";
import { teamAuditLog } from "@/lib/teams/audit";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ team: string }>({
  // GET /teams/<team>/audit?limit&offset – the team's audit log, newest first (admins and owners)
  GET: withAccount(async ({ req, params, ctx, caller }) =>
    json(await teamAuditLog(ctx, caller, params.team, Object.fromEntries(new URL(req.url).searchParams))),
  ),
});
