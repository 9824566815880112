import * as S from "../schemas";
import { jsonRequest, jsonResponse, optionalCredential, type Resource } from "./operation";

// The Model Context Protocol endpoint: POST /mcp (stateless JSON-RPC 2.0). Its failures are
// JSON-RPC bodies, not the error envelope, except the HTTP-level 405 and 429.

export const mcp = {
  tag: "mcp",
  schemas: { JsonRpcRequest: S.jsonRpcRequestSchema, JsonRpcResponse: S.jsonRpcResponseSchema },
  paths: () => ({
    "/mcp": {
      post: {
        operationId: "mcp",
        summary: "Model Context Protocol (stateless JSON-RPC 2.0)",
        description:
          "Methods: server/discover, initialize (legacy), tools/list, tools/call. Tools: deploy_html, deploy_files, deploy_named, append_files, list_drops, get_drop, delete_drop, get_limits. With a Bearer sp_ key the tools act as that account; without one, deploys are anonymous. Tool failures are results with isError: true whose text carries the error code and hint (and _meta dev.dropsite/error the envelope). A request whose Origin is not allowed answers 403.",
        security: optionalCredential,
        requestBody: jsonRequest(S.jsonRpcRequestSchema),
        responses: {
          200: jsonResponse(S.jsonRpcResponseSchema),
          202: { description: "A notification was accepted; no body." },
          400: jsonResponse(S.jsonRpcResponseSchema, "Invalid JSON-RPC request, batch, or protocol-version mismatch."),
          403: jsonResponse(S.jsonRpcResponseSchema, "The request's Origin is not allowed (MCP_ALLOWED_ORIGINS)."),
          404: jsonResponse(S.jsonRpcResponseSchema, "Unknown method (-32601)."),
          413: jsonResponse(S.jsonRpcResponseSchema, "The body is over the cap of one tool call."),
        },
        errors: ["method_not_allowed", "rate_limited"],
      },
    },
  }),
} satisfies Resource;
