import { getContext } from "@/lib/context";
import { json, routes } from "@/lib/http";
import { protectedResourceMetadata } from "@/lib/oauth/resource";

export const dynamic = "force-dynamic";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  // GET /.well-known/oauth-protected-resource/mcp – RFC 9728 metadata of the MCP endpoint: its
  // resource URL, this app as authorization server, the scope
  GET: async () => json(protectedResourceMetadata(await getContext()), 200, { "Access-Control-Allow-Origin": "*" }),
});
