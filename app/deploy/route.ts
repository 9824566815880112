import { bodyRoutes } from "@/lib/http-routes";
import { deployHandlers } from "@/lib/deploy/handlers";

export const dynamic = "force-dynamic";

// POST /deploy – create a drop from HTML, a FilesBody or a zip (self-hosted, the data plane answers it first)
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/deploy", deployHandlers);
