import { getContext } from "@/lib/context";
import { bodyRoutes } from "@/lib/http-routes";
import { preflight, withOriginPolicy } from "@/lib/mcp/origin";
import { handleMcp } from "@/lib/mcp/server";

export const dynamic = "force-dynamic";

const methods = bodyRoutes("/mcp", {
  // POST /mcp – MCP over the official server SDK (2026-07-28 stateless, and legacy initialize),
  // behind the Origin policy; GET and the rest answer 405
  POST: async (req) => {
    const ctx = await getContext();
    return withOriginPolicy(ctx.env, req, () => handleMcp(ctx, req));
  },
});

export const { GET, HEAD, PUT, PATCH, DELETE, POST } = methods;

// OPTIONS /mcp – CORS preflight for the allowed browser origins; 403 for any other Origin
export async function OPTIONS(req: Request): Promise<Response> {
  return preflight((await getContext()).env, req);
}
