import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";

// A local stand-in of the part of Vercel's REST API the custom domains use: a project's domains
// (add, read, remove) and a domain's DNS configuration. The official @vercel/sdk is pointed at
// it with VERCEL_API_URL. Every call is recorded, with its Authorization header, for assertions.

export interface VercelCall {
  method: string;
  /** Path and query as sent, e.g. /v10/projects/prj_1/domains?teamId=team_1 */
  url: string;
  authorization: string | null;
  body: unknown;
}

export interface VercelStandin {
  url: string;
  token: string;
  projectId: string;
  calls: VercelCall[];
  /** Domains the project has now. */
  domains(): string[];
  /** The next calls of this method answer this status with Vercel's error shape. */
  failNext(method: string, status: number): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function startVercelStandin(): Promise<VercelStandin> {
  const token = `vercel_test_${randomBytes(12).toString("hex")}`;
  const projectId = "prj_dropsite_test";
  const calls: VercelCall[] = [];
  const project = new Map<string, { name: string; verified: boolean }>();
  const failures = new Map<string, number>();
  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, code: string, message: string) =>
    send(res, status, { error: { code, message } });
  const domainBody = (name: string) => ({
    name,
    apexName: name.split(".").slice(-2).join("."),
    projectId,
    verified: true,
    createdAt: 1,
    updatedAt: 1,
  });

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = req.url ?? "/";
      calls.push({ method: req.method ?? "", url, authorization: req.headers.authorization ?? null, body });
      if (req.headers.authorization !== `Bearer ${token}`) return error(res, 403, "forbidden", "Not authorized");
      const fail = failures.get(req.method ?? "");
      if (fail) {
        failures.delete(req.method ?? "");
        return error(res, fail, "internal_server_error", "Failed");
      }
      const path = new URL(url, "http://x").pathname;
      let m = /^\/v10\/projects\/([^/]+)\/domains$/.exec(path);
      if (req.method === "POST" && m) {
        if (m[1] !== projectId) return error(res, 404, "not_found", "Project not found");
        const name = (body as { name?: string }).name ?? "";
        if (project.has(name))
          return error(
            res,
            409,
            "domain_already_in_use",
            `Cannot add ${name} since it's already in use by your account.`,
          );
        project.set(name, { name, verified: true });
        return send(res, 200, domainBody(name));
      }
      if (req.method === "GET" && (m = /^\/v9\/projects\/([^/]+)\/domains\/([^/]+)$/.exec(path))) {
        if (!project.has(decodeURIComponent(m[2]!))) return error(res, 404, "not_found", "Domain not found");
        return send(res, 200, domainBody(decodeURIComponent(m[2]!)));
      }
      if (req.method === "DELETE" && (m = /^\/v9\/projects\/([^/]+)\/domains\/([^/]+)$/.exec(path))) {
        if (!project.delete(decodeURIComponent(m[2]!))) return error(res, 404, "not_found", "Domain not found");
        return send(res, 200, {});
      }
      if (req.method === "GET" && /^\/v6\/domains\/[^/]+\/config$/.test(path)) {
        return send(res, 200, {
          configuredBy: null,
          acceptedChallenges: ["http-01"],
          recommendedIPv4: [],
          recommendedCNAME: [],
          misconfigured: true,
        });
      }
      error(res, 404, "not_found", "No such endpoint");
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    projectId,
    calls,
    domains: () => [...project.keys()],
    failNext: (method, status) => failures.set(method, status),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
