import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { handleOauth } from "@/lib/oauth/handler";
import * as mcpRoute from "@/app/mcp/route";
import * as resourceRoute from "@/app/.well-known/oauth-protected-resource/mcp/route";
import { freePort } from "./net";

// The app's OAuth surface on a loopback port, as the built app routes it: /api/oauth/* and the
// RFC 8414 metadata to the authorization server's Node handler (pages/api/oauth), /mcp and the
// protected-resource metadata to their route modules.

export interface OauthServer {
  port: number;
  baseUrl: string;
  close(): Promise<void>;
}

async function toWeb(req: IncomingMessage, base: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
  headers.set("x-dropsite-socket-ip", "127.0.0.1");
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  return new Request(new URL(req.url ?? "/", base), { method: req.method, headers, body });
}

async function fromWeb(res: ServerResponse, r: Response): Promise<void> {
  res.statusCode = r.status;
  r.headers.forEach((v, k) => res.setHeader(k, v));
  res.end(Buffer.from(await r.arrayBuffer()));
}

type Method = "GET" | "POST" | "DELETE" | "PUT" | "PATCH" | "HEAD" | "OPTIONS";

export async function startOauthServer(port: number): Promise<OauthServer> {
  const baseUrl = `http://localhost:${port}`;
  const server = createServer({ joinDuplicateHeaders: true }, (req, res) => {
    const path = new URL(req.url ?? "/", baseUrl).pathname;
    void (async () => {
      if (path.startsWith("/api/oauth/") || path === "/.well-known/oauth-authorization-server")
        return handleOauth(req, res);
      const route =
        path === "/mcp" ? mcpRoute : path === "/.well-known/oauth-protected-resource/mcp" ? resourceRoute : undefined;
      if (!route) return void res.writeHead(404).end();
      return fromWeb(
        res,
        await route[(req.method ?? "GET") as Method](await toWeb(req, baseUrl), { params: Promise.resolve({}) }),
      );
    })().catch((err: unknown) => {
      console.error(err);
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return {
    port,
    baseUrl,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

export { freePort };
