import { getContext } from "@/lib/context";
import { routes } from "@/lib/http";
import { archiveFromDashboard } from "@/lib/drops/readback-dashboard";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ slug: string }>({
  // GET /dashboard/drops/{slug}/archive – a version row's "Download .zip", as the session's account
  GET: async (req, params) => archiveFromDashboard(await getContext(), req, params.slug),
});
