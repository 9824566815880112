import { getContext } from "@/lib/context";
import { clientIp, json, readJson, routes } from "@/lib/http";
import { requireCaller } from "@/lib/auth/caller";
import { enforceLimit } from "@/lib/ratelimit/guard";
import { claimBodySchema, claimDrop } from "@/lib/drops/manage";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // POST /claim – give an anonymous drop to the caller's account with its claim token
  POST: async (req) => {
    const ctx = await getContext();
    await enforceLimit(ctx, "claim", clientIp(req, ctx.env.TRUST_PROXY));
    const caller = await requireCaller(ctx, req);
    const body = await readJson(req, claimBodySchema);
    return json(await claimDrop(ctx, caller.account, body));
  },
});
