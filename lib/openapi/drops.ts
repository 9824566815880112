import * as S from "../schemas";
import { describeRate } from "../ratelimit/policy";
import { ACCESS_PASSWORD_MAX_CHARS, ACCESS_PASSWORD_MIN_CHARS } from "../plans";
import { anyCredential, jsonRequest, jsonResponse, slugPath, type Resource } from "./operation";

// An account's drops: GET /drops, GET and DELETE /drops/{slug}, PUT /drops/{slug}/access.

export const drops = {
  tag: "drops",
  schemas: { DropList: S.listDropsResponseSchema, DropDetail: S.dropDetailSchema, DeletedDrop: S.deleteDropResponseSchema, AccessBody: S.accessBodySchema, Access: S.accessResponseSchema },
  paths: (ctx) => ({
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
      get: {
        operationId: "getDrop",
        summary: "One of your drops, with its files and access mode",
        description: "What the MCP tool get_drop returns. Another account's drop, and an anonymous drop, answer 404 not_found.",
        security: anyCredential,
        requestParams: { path: slugPath },
        responses: { 200: jsonResponse(S.dropDetailSchema) },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
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
    "/drops/{slug}/access": {
      put: {
        operationId: "setDropAccess",
        summary: "Protect a drop with a password, or make it public",
        description:
          `{"mode": "password", "password": "…"} (${ACCESS_PASSWORD_MIN_CHARS} to ${ACCESS_PASSWORD_MAX_CHARS} characters) makes every path of the drop answer 401 with a password form until a visitor enters the password; ` +
          `{"mode": "public"} opens it again. Every call revokes every earlier unlock. The password is stored as a salted scrypt hash and never returned. ` +
          `Wrong passwords on the form: ${describeRate(ctx.rate.unlock)} per drop and client address, then 429. Every plan; anonymous drops (no owner) answer 404 not_found.`,
        security: anyCredential,
        requestParams: { path: slugPath },
        requestBody: jsonRequest(S.accessBodySchema),
        responses: { 200: jsonResponse(S.accessResponseSchema) },
        errors: ["invalid_request", "payload_too_large", "auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
  }),
} satisfies Resource;
