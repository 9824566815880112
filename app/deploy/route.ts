import { getContext } from "@/lib/context";
import { json, routes } from "@/lib/http";
import { deployFromRequest } from "@/lib/deploy/request";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // POST /deploy – create a drop from HTML, a FilesBody or a zip
  POST: async (req) => json(await deployFromRequest(await getContext(), req)),
});
