import { bodyRoutes } from "@/lib/http-routes";
import { uploadHandlers } from "@/lib/deploy/handlers";

export const dynamic = "force-dynamic";

// PUT /deploy/uploads/{token}/{sha256} – the raw bytes of one content (self-hosted, the data plane answers it first)
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes(
  "/deploy/uploads/{token}/{sha256}",
  uploadHandlers,
);
