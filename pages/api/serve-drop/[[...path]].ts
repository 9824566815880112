import type { IncomingMessage, ServerResponse } from "node:http";
import { serveRewritten } from "@/lib/plane/node";

// The serve route on the Vercel path (and `next start`): proxy.ts rewrites every request to a
// drop host here. A Pages API route, not an App Router route handler, because it answers on
// Node's own response: the App Router adds `Vary: rsc, next-router-state-tree, …` to every
// answer and drops Content-Length, where a drop's file is not a React Server Component. So a
// drop answers with the same bytes and headers as on the data plane (lib/plane/node.ts).
export const config = { api: { bodyParser: false, responseLimit: false, externalResolver: true } };

export default function handler(req: IncomingMessage, res: ServerResponse): Promise<void> {
  return serveRewritten(req, res);
}
