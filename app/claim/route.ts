import { getContext } from "@/lib/context";
import { json, readJson } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { clientAddress } from "@/lib/ratelimit/address";
import { requireCaller } from "@/lib/auth/caller";
import { enforceLimit } from "@/lib/ratelimit/guard";
import { claimDrop } from "@/lib/drops/manage";
import { claimBodySchema } from "@/lib/schemas";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/claim", {
  // POST /claim – give an anonymous drop to the caller's account with its claim token
  POST: async (req) => {
    const ctx = await getContext();
    await enforceLimit(ctx, "claim", clientAddress(req, ctx.env));
    const caller = await requireCaller(ctx, req);
    const body = await readJson(req, claimBodySchema);
    return json(await claimDrop(ctx, caller.account, body));
  },
});
