import { bodyRoutes } from "@/lib/http-routes";
import { deployOnceHandlers } from "@/lib/deploy/handlers";

export const dynamic = "force-dynamic";

// POST /deploy/once/{token} – the bodies of POST /deploy, through a one-time grant (self-hosted, the data plane answers it first)
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/deploy/once/{token}", deployOnceHandlers);
