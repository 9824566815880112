import { getContext } from "@/lib/context";
import { serveRequest } from "@/lib/serve";

// A request to a drop host, answered by lib/serve's Fetch entry: the serve route's work
// (serveDropResult) without Node's response writer, which pages/api/serve-drop and the data
// plane share (tests/e2e/vercel-path.test.ts compares what they write).

export async function serveGET(req: Request): Promise<Response> {
  return serveRequest(await getContext(), req);
}
