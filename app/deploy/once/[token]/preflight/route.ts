import { getContext } from "@/lib/context";
import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { preflightWithGrant } from "@/lib/deploy/uploads";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/deploy/once/{token}/preflight", {
  // POST /deploy/once/{token}/preflight – a preflight as the one-time grant's caller (the grant stays unused)
  POST: async (req, { token }) => json(await preflightWithGrant(await getContext(), req, token)),
});
