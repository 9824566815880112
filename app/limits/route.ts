import { getContext } from "@/lib/context";
import { json, routes } from "@/lib/http";
import { optionalCaller } from "@/lib/auth/caller";
import { describeLimits } from "@/lib/drops/manage";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // GET /limits – the limits that apply to the caller (anonymous without a credential)
  GET: async (req) => {
    const ctx = await getContext();
    const caller = await optionalCaller(ctx, req);
    return json(describeLimits(ctx, caller.account));
  },
});
