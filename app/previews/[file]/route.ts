import { getContext } from "@/lib/context";
import { routes } from "@/lib/http";
import { servePreview } from "@/lib/render/service";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes<{ file: string }>({
  // GET /previews/{file} – a render check's screenshot (public, unguessable URL, immutable)
  GET: async (req, { file }) => servePreview(await getContext(), file, req.method),
});
