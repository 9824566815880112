import { getContext } from "@/lib/context";
import { json, routes } from "@/lib/http";
import { appendFromRequest } from "@/lib/deploy/request";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ slug: string }>({
  // POST /deploy/{slug} – append files to a drop (subscribers)
  POST: async (req, { slug }) => json(await appendFromRequest(await getContext(), req, slug)),
});
