import { getContext } from "@/lib/context";
import { ApiError, authRequired } from "@/lib/errors";
import { json, routes } from "@/lib/http";
import { sessionCaller } from "@/lib/auth/session";
import { checkDeployOptions, deployFiles, guardedDeploy, withBodySlot } from "@/lib/drops/deploy-request";
import { readDeployFiles } from "@/lib/deploy/body";
import { isPaid, limits } from "@/lib/plans";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // POST /dashboard/upload – the dashboard's drop zone: deploy as the session's account.
  POST: async (req) => {
    const ctx = await getContext();
    // The abuse guard every deploy path shares: the deploy budget is spent when files reach
    // storage; refused requests (cross-origin, no session, bad input) spend their own budget.
    const body = await guardedDeploy(ctx, req, async (quota) => {
      // Cookie-authenticated: refuse requests that another site's page could make.
      if (req.headers.get("origin") !== new URL(ctx.env.BASE_URL).origin) {
        throw new ApiError("invalid_request", "Cross-origin uploads are not accepted here.");
      }
      const caller = await sessionCaller();
      if (!caller) throw authRequired();
      const query = new URL(req.url).searchParams;
      const opts = { ttl: query.get("ttl"), name: query.get("name") };
      checkDeployOptions(caller, opts);
      const tier = caller.account.plan;
      return withBodySlot(req, async () => deployFiles(ctx, caller, opts, await readDeployFiles(req, limits[tier], isPaid(tier)), quota));
    });
    return json(body);
  },
});
