import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { getContext } from "@/lib/context";
import { readOperatorBody } from "@/lib/admin/route";
import { clientAddress } from "@/lib/ratelimit/address";
import { reportAndCheck } from "@/lib/render/reported";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/reports", {
  // POST /reports – report a drop (no credential needed)
  POST: async (req) => {
    const ctx = await getContext();
    return json(await reportAndCheck(ctx, await readOperatorBody(req), clientAddress(req, ctx.env)), 202);
  },
});
