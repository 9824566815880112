import { getContext } from "@/lib/context";
import { health } from "@/lib/health";
import { json, routes } from "@/lib/http";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // GET /healthz – database and storage reachable, version (200 ok, 503 degraded with Retry-After)
  GET: async () => {
    const h = await health(await getContext());
    return h.status === "ok" ? json(h) : json(h, 503, { "Retry-After": "5" });
  },
});
