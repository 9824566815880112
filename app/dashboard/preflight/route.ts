import { getContext } from "@/lib/context";
import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { preflightFromDashboard } from "@/lib/deploy/dashboard";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/dashboard/preflight", {
  // POST /dashboard/preflight – the dashboard's drop zone: preflight as the session's account.
  POST: async (req) => json(await preflightFromDashboard(await getContext(), req)),
});
