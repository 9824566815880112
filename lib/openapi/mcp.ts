import * as S from "../schemas";
import { jsonRequest, jsonResponse, noCredential, optionalCredential, type Resource } from "./operation";

// The Model Context Protocol endpoint: POST /mcp (stateless JSON-RPC 2.0). Its failures are
// JSON-RPC bodies, not the error envelope, except the HTTP-level 405 and 429.

export const mcp = {
  tag: "mcp",
  schemas: {
    JsonRpcRequest: S.jsonRpcRequestSchema,
    JsonRpcResponse: S.jsonRpcResponseSchema,
    ProtectedResourceMetadata: S.protectedResourceMetadataSchema,
  },
  paths: () => ({
    "/mcp": {
      post: {
        operationId: "mcp",
        summary: "Model Context Protocol (stateless JSON-RPC 2.0)",
        description:
          "Methods: server/discover, initialize (legacy), tools/list, tools/call. Tools: deploy_html, deploy_files, deploy_named, append_files, list_drops, get_drop, delete_drop, get_limits. With a Bearer sp_ key the tools act as that account; without one, deploys are anonymous. Tool failures are results with isError: true whose text carries the error code and hint (and _meta dev.dropsite/error the envelope). A request whose Origin is not allowed answers 403. OAuth clients (hosted agent platforms' connectors) add this URL, discover the authorization server from /.well-known/oauth-protected-resource/mcp, register (RFC 7591) and send an access token; an expired or revoked access token answers 401 with WWW-Authenticate naming that metadata.",
        security: [...optionalCredential, { mcpOAuth: ["mcp"] }],
        requestBody: jsonRequest(S.jsonRpcRequestSchema),
        responses: {
          200: jsonResponse(S.jsonRpcResponseSchema),
          202: { description: "A notification was accepted; no body." },
          400: jsonResponse(S.jsonRpcResponseSchema, "Invalid JSON-RPC request, batch, or protocol-version mismatch."),
          401: {
            description:
              'An OAuth access token that is unknown, expired or revoked: {error: "invalid_token", error_description}, with WWW-Authenticate: Bearer error="invalid_token", resource_metadata="…/.well-known/oauth-protected-resource/mcp". API keys and ID tokens that are not accepted get an isError tool result instead.',
          },
          403: jsonResponse(S.jsonRpcResponseSchema, "The request's Origin is not allowed (MCP_ALLOWED_ORIGINS)."),
          404: jsonResponse(S.jsonRpcResponseSchema, "Unknown method (-32601)."),
          413: jsonResponse(S.jsonRpcResponseSchema, "The body is over the cap of one tool call."),
        },
        errors: ["method_not_allowed", "rate_limited"],
      },
    },
    "/.well-known/oauth-protected-resource/mcp": {
      get: {
        operationId: "mcpResourceMetadata",
        summary: "OAuth protected-resource metadata of /mcp (RFC 9728)",
        description:
          "Names BASE_URL/mcp as the resource and this app (BASE_URL) as its authorization server. The authorization server's metadata (RFC 8414) is at /.well-known/oauth-authorization-server: dynamic registration at /api/oauth/register, authorization code with PKCE S256 only at /api/oauth/authorize, tokens (and refresh) at /api/oauth/token; its errors are RFC 6749 bodies {error, error_description}.",
        security: noCredential,
        responses: { 200: jsonResponse(S.protectedResourceMetadataSchema) },
        errors: ["method_not_allowed"],
      },
    },
  }),
} satisfies Resource;
