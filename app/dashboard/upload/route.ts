import { getContext } from "@/lib/context";
import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { deployFromDashboard } from "@/lib/deploy/dashboard";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/dashboard/upload", {
  // POST /dashboard/upload – the dashboard's drop zone: deploy as the session's account.
  POST: async (req) => json(await deployFromDashboard(await getContext(), req)),
});
