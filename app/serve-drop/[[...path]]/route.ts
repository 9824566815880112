import { getContext } from "@/lib/context";
import { serveRequest } from "@/lib/serve";

// The serve route: every request to a drop host lands here through proxy.ts.
export const dynamic = "force-dynamic";

async function handler(req: Request): Promise<Response> {
  return serveRequest(await getContext(), req);
}

export { handler as GET, handler as HEAD, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as OPTIONS };
