import * as S from "../schemas";
import { anyCredential, jsonResponse, slugPath, type Resource } from "./operation";

// An account's drops: GET /drops and DELETE /drops/{slug}.

export const drops = {
  tag: "drops",
  schemas: { DropList: S.listDropsResponseSchema, DeletedDrop: S.deleteDropResponseSchema },
  paths: () => ({
    "/drops": {
      get: {
        operationId: "listDrops",
        summary: "List your drops, newest first",
        security: anyCredential,
        requestParams: { query: S.listQuerySchema },
        responses: { 200: jsonResponse(S.listDropsResponseSchema) },
        errors: ["invalid_request", "auth_required", "rate_limited", "upstream_unavailable"],
      },
    },
    "/drops/{slug}": {
      delete: {
        operationId: "deleteDrop",
        summary: "Delete a drop and purge its files",
        description: "Edge caches may serve a deleted drop for up to 60 seconds.",
        security: anyCredential,
        requestParams: { path: slugPath },
        responses: { 200: jsonResponse(S.deleteDropResponseSchema) },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
  }),
} satisfies Resource;
