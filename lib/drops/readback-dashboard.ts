import type { AppContext } from "../context";
import { authRequired } from "../errors";
import { sessionCaller } from "../auth/session";
import { checkGate, TEAM_ROUTE_GATES } from "../teams/gates";
import { archiveVersion } from "./readback";

// The dashboard's "Download .zip" of a version row: the archive of GET /drops/{slug}/archive as
// the session's account (or the team it acts as, with that route's gate). Kept apart from
// readback.ts because the session comes from next-auth. A plain GET link that changes nothing,
// so no Origin check: another site could only start a download into the person's own browser.

// GET /dashboard/drops/{slug}/archive?version=N
export async function archiveFromDashboard(ctx: AppContext, req: Request, slug: string): Promise<Response> {
  const caller = await sessionCaller();
  if (!caller) throw authRequired();
  checkGate(caller, TEAM_ROUTE_GATES["GET /drops/{slug}/archive"]);
  return archiveVersion(ctx, caller.account, slug, new URL(req.url).searchParams.get("version"));
}
