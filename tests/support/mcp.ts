import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import * as mcpRoute from "@/app/mcp/route";
import { bearer } from "./accounts";
import { TEST_BASE_URL } from "./context";

// The real MCP client, connected in-process to the /mcp route module (no network): each
// request carries the client address the listener would have set.

type Method = keyof typeof mcpRoute & ("GET" | "POST" | "DELETE" | "PUT" | "PATCH" | "HEAD" | "OPTIONS");

/** A fetch that hands the Request to the route module's exported handler, as from `ip`. */
function inProcessFetch(ip: string) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const headers = new Headers(req.headers);
    headers.set("x-dropsite-socket-ip", ip);
    const routed = new Request(req, { headers });
    return mcpRoute[routed.method as Method](routed, { params: Promise.resolve({}) });
  };
}

/** "modern": the 2026-07-28 revision pinned; "legacy": the SDK's default (initialize handshake). */
export type McpMode = "modern" | "legacy";

export async function connectInProcess(mode: McpMode, opts: { ip: string; credential?: string }): Promise<Client> {
  const client = new Client({ name: "dropsite-test", version: "1.0.0" }, mode === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {});
  const transport = new StreamableHTTPClientTransport(new URL(`${TEST_BASE_URL}/mcp`), {
    fetch: inProcessFetch(opts.ip),
    requestInit: opts.credential ? { headers: bearer(opts.credential) } : undefined,
  });
  await client.connect(transport);
  return client;
}

/** A tool call's result, as the client returns it. */
export interface CallResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** The text an agent reads from a result. */
export const resultText = (r: CallResult) => r.content.map((c) => c.text ?? "").join("\n");
