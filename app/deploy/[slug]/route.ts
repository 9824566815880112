import { bodyRoutes } from "@/lib/http-routes";
import { appendHandlers } from "@/lib/deploy/handlers";

export const dynamic = "force-dynamic";

// POST /deploy/{slug} – append files to a drop (self-hosted, the data plane answers it first)
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/deploy/{slug}", appendHandlers);
