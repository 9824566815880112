import { routes } from "@/lib/http";
import { appendHandlers } from "@/lib/deploy/handlers";

export const dynamic = "force-dynamic";

// POST /deploy/{slug} – append files to a drop (self-hosted, the data plane answers it first)
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes(appendHandlers);
