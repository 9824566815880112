import { getContext } from "@/lib/context";
import { json, routes } from "@/lib/http";
import { preflight } from "@/lib/deploy/uploads";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // POST /deploy/preflight – which contents to upload, and where
  POST: async (req) => json(await preflight(await getContext(), req)),
});
