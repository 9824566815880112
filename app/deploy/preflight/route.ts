import { getContext } from "@/lib/context";
import { json } from "@/lib/http";
import { bodyRoutes } from "@/lib/http-routes";
import { preflight } from "@/lib/deploy/uploads";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = bodyRoutes("/deploy/preflight", {
  // POST /deploy/preflight – which contents to upload, and where
  POST: async (req) => json(await preflight(await getContext(), req)),
});
