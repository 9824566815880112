import { getContext } from "@/lib/context";
import { routes } from "@/lib/http";
import { handleMcp } from "@/lib/mcp/server";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // POST /mcp – stateless JSON-RPC 2.0 (MCP 2026-07-28, and legacy initialize); GET and the rest answer 405
  POST: async (req) => handleMcp(await getContext(), req),
});
