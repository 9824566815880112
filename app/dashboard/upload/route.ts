import { getContext } from "@/lib/context";
import { ApiError, authRequired } from "@/lib/errors";
import { json, routes } from "@/lib/http";
import { sessionCaller } from "@/lib/auth/session";
import { checkDeployOptions, deployFiles, guardDeployRate, withBodySlot } from "@/lib/drops/deploy-request";
import { readDeployFiles } from "@/lib/deploy/body";
import { isPaid, limits } from "@/lib/plans";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // POST /dashboard/upload – the dashboard's drop zone: deploy as the session's account.
  POST: async (req) => {
    const ctx = await getContext();
    // Cookie-authenticated: refuse requests that another site's page could make.
    if (req.headers.get("origin") !== new URL(ctx.env.BASE_URL).origin) {
      throw new ApiError("invalid_request", "Cross-origin uploads are not accepted here.");
    }
    const caller = await sessionCaller();
    if (!caller) throw authRequired();
    await guardDeployRate(ctx, req);
    const query = new URL(req.url).searchParams;
    const opts = { ttl: query.get("ttl"), name: query.get("name") };
    checkDeployOptions(caller, opts);
    const tier = caller.account.plan;
    return json(await withBodySlot(req, async () => deployFiles(ctx, caller, opts, await readDeployFiles(req, limits[tier], isPaid(tier)))));
  },
});
