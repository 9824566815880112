import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Transport1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
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
  const client = new Client(
    { name: "dropsite-test", version: "1.0.0" },
    mode === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${TEST_BASE_URL}/mcp`), {
    fetch: inProcessFetch(opts.ip),
    requestInit: opts.credential ? { headers: bearer(opts.credential) } : undefined,
  });
  await client.connect(transport);
  return client;
}

/** Connects the official client over HTTP to a running app's /mcp (the built app: tests/support/app-server.ts). */
export async function connectHttp(
  baseUrl: string,
  opts: { mode?: McpMode; credential?: string } = {},
): Promise<Client> {
  const client = new Client(
    { name: "dropsite-test", version: "1.0.0" },
    opts.mode === "legacy" ? {} : { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: opts.credential ? { headers: bearer(opts.credential) } : undefined,
    }),
  );
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

/** The two official TypeScript clients agents run: the SDK 1.x client and the 2.x client (modern era). */
export type ClientFlavour = "sdk-1.x" | "client-2.x";
export const CLIENT_FLAVOURS: ClientFlavour[] = ["sdk-1.x", "client-2.x"];

/** What a test needs of a connected client, whichever package it comes from. */
export interface Agent {
  call(name: string, args: Record<string, unknown>): Promise<CallResult>;
  listTools(): Promise<{ name: string; _meta?: Record<string, unknown> }[]>;
  close(): Promise<void>;
}

/** Connects either official client in-process (callTool: the path where SDK 1.x validates structuredContent). */
export async function connectAgent(flavour: ClientFlavour, opts: { ip: string; credential?: string }): Promise<Agent> {
  if (flavour === "client-2.x") {
    const client = await connectInProcess("modern", opts);
    return {
      call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallResult,
      listTools: async () => (await client.listTools()).tools,
      close: () => client.close(),
    };
  }
  const client = new Client1({ name: "dropsite-test-1x", version: "1.0.0" });
  await client.connect(
    new Transport1(new URL(`${TEST_BASE_URL}/mcp`), {
      fetch: inProcessFetch(opts.ip),
      requestInit: opts.credential ? { headers: bearer(opts.credential) } : undefined,
    }),
  );
  return {
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallResult,
    listTools: async () => (await client.listTools()).tools,
    close: () => client.close(),
  };
}
