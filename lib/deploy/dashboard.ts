import type { AppContext } from "../context";
import { authRequired } from "../errors";
import { requireJsonBody } from "../http";
import type { Caller } from "../auth/caller";
import { sessionCaller } from "../auth/session";
import { refuseSuspendedCaller } from "../auth/suspended";
import { checkGate, TEAM_ROUTE_GATES } from "../teams/gates";
import type { DeployResponse, PreflightResponse } from "../schemas";
import { deployBody, guardedDeploy } from "./request";
import { preflight, UPLOAD_TOKEN_HEADER } from "./uploads";

// The dashboard's drop zone: the deploy flow of lib/deploy/request.ts as the session's account.
// Kept apart from request.ts because the session comes from next-auth: the self-hosted data
// plane (lib/plane/node.ts) runs the REST deploy flows outside Next and must not load it.

// POST /dashboard/upload: the dashboard's drop zone deploys as the session's account, through
// the same guard, option checks, body reader and store as POST /deploy.
export async function deployFromDashboard(ctx: AppContext, req: Request): Promise<DeployResponse> {
  return guardedDeploy(ctx, req, "dashboard", async (quota) => {
    const caller = await dashboardCaller();
    const query = new URL(req.url).searchParams;
    return deployBody(
      ctx,
      req,
      caller,
      { ttl: query.get("ttl"), name: query.get("name"), uploadToken: req.headers.get(UPLOAD_TOKEN_HEADER) },
      quota,
    );
  });
}

/**
 * The session's account on a dashboard request; cookie-authenticated, so a request another
 * site's page (or a drop host's) could make is refused (403, lib/auth/origin.ts).
 */
async function dashboardCaller(): Promise<Caller> {
  const caller = await sessionCaller("write");
  if (!caller) throw authRequired();
  refuseSuspendedCaller(caller);
  // Acting as a team (the dashboard's switcher): the gate of POST /deploy, whose work this is.
  checkGate(caller, TEAM_ROUTE_GATES["POST /deploy"]);
  return caller;
}

// POST /dashboard/preflight: the dashboard's drop zone preflights as the session's account (its
// uploads then land in the account's scope, and POST /dashboard/upload deploys them by reference).
export async function preflightFromDashboard(ctx: AppContext, req: Request): Promise<PreflightResponse> {
  const caller = await dashboardCaller();
  requireJsonBody(req);
  return preflight(ctx, req, caller);
}
