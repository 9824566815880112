import type { IncomingMessage, ServerResponse } from "node:http";
import { handleOauth } from "@/lib/oauth/handler";

// The OAuth authorization server (lib/oauth): /api/oauth/* and, rewritten here by next.config.ts,
// /.well-known/oauth-authorization-server. A Pages API route because oidc-provider answers on
// Node's own request and response.
export const config = { api: { bodyParser: false, responseLimit: false, externalResolver: true } };

export default function handler(req: IncomingMessage, res: ServerResponse): Promise<void> {
  return handleOauth(req, res);
}
