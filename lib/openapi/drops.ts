import * as S from "../schemas";
import { z } from "zod";
import { describeRate } from "../ratelimit/policy";
import { ACCESS_MEMBER_TOKEN_SECONDS, ACCESS_PASSWORD_MAX_CHARS, ACCESS_PASSWORD_MIN_CHARS, limits } from "../plans";
import { anyCredential, jsonRequest, jsonResponse, slugPath, type Resource } from "./operation";

// An account's drops: GET /drops, GET and DELETE /drops/{slug}, PUT /drops/{slug}/access, a
// drop's versions and rollback.

export const drops = {
  tag: "drops",
  schemas: {
    DropList: S.listDropsResponseSchema,
    DeletedDrop: S.deleteDropResponseSchema,
    DropDetail: S.dropDetailSchema,
    AccessBody: S.accessBodySchema,
    Access: S.accessResponseSchema,
    VersionList: S.versionsListSchema,
    RollbackBody: S.rollbackBodySchema,
    Rollback: S.rollbackResponseSchema,
    AliasBody: S.aliasBodySchema,
    Alias: S.aliasSchema,
    AliasList: S.aliasListSchema,
  },
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
        summary: "One of your drops, with its live version's files and its access mode",
        description:
          "What the MCP tool get_drop returns. Another account's drop, and an anonymous drop, answer 404 not_found exactly as an absent drop.",
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
    "/access/members": {
      get: {
        operationId: "membersOnlyEntry",
        summary: "A members-only drop's visitor, checked against the browser's session",
        description:
          "A page for browsers, where a members-only drop's host sends a visitor without its cookie. Without a session: 302 to the login page, which comes back here. " +
          `A logged-in member of the team that owns the drop (any role): 302 to the drop host's /.well-known/dropsite/unlock with a one-time token (${ACCESS_MEMBER_TOKEN_SECONDS} seconds, that drop only) and the return path, where it is exchanged for the drop's host-only cookie. ` +
          "A logged-in person who is not a member: 403 with an HTML page saying so and nothing of the drop; a slug that names no members-only drop: 404 with an HTML page. No answer is stored by any cache.",
        security: [{}],
        requestParams: {
          query: z.object({
            drop: z.string().describe("The drop's slug."),
            return: z.string().optional().describe("The path on the drop's host to come back to (anything else: /)."),
            host: z
              .string()
              .optional()
              .describe(
                "The drop's vanity host or custom domain the visitor came from, to go back to; ignored unless it is this drop's (then the slug's own host).",
              ),
          }),
        },
        responses: {
          302: { description: "To the login page, or (a member) to the drop host's unlock path with a token." },
        },
        errors: ["upstream_unavailable"],
      },
    },
    "/drops/{slug}/access": {
      put: {
        operationId: "setDropAccess",
        summary: "Protect a drop with a password or for its team's members, or make it public",
        description:
          `{"mode": "password", "password": "…"} (${ACCESS_PASSWORD_MIN_CHARS} to ${ACCESS_PASSWORD_MAX_CHARS} characters) makes every path of the drop answer 401 with a password form until a visitor enters the password; ` +
          `{"mode": "members"} (a team's drop only; a person's own drop answers 400 invalid_request) sends every visitor without the drop's cookie, by 302 (no-store), to GET /access/members, where logged-in members of the owning team get a one-time, ${ACCESS_MEMBER_TOKEN_SECONDS}-second token for the drop host's unlock path and everyone else a 403 page; ` +
          `{"mode": "public"} opens it again. Every call revokes every earlier unlock. The password is stored as a salted scrypt hash and never returned. ` +
          `Wrong passwords on the form: ${describeRate(ctx.rate.unlock)} per drop and client address, then 429. Every plan; anonymous drops (no owner) answer 404 not_found.`,
        security: anyCredential,
        requestParams: { path: slugPath },
        requestBody: jsonRequest(S.accessBodySchema),
        responses: { 200: jsonResponse(S.accessResponseSchema) },
        errors: [
          "invalid_request",
          "payload_too_large",
          "auth_required",
          "not_found",
          "rate_limited",
          "upstream_unavailable",
        ],
      },
    },
    "/drops/{slug}/versions": {
      get: {
        operationId: "listVersions",
        summary: "The drop's retained versions, newest first",
        description: `Every deploy, named replace and append makes a version. The newest ${limits.free.versionsKept} (free) or ${limits.pro.versionsKept} (pro and team) are kept, the live one always.`,
        security: anyCredential,
        requestParams: { path: slugPath, query: S.listQuerySchema },
        responses: { 200: jsonResponse(S.versionsListSchema) },
        errors: ["invalid_request", "auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
    "/drops/{slug}/rollback": {
      post: {
        operationId: "rollbackDrop",
        summary: "Make a retained version live (rollback or rollfore)",
        description:
          "A pointer move, no bytes copied; this instance serves the version at once, others within seconds. The next write makes a new version from the live one. An unknown or pruned version answers 404.",
        security: anyCredential,
        requestParams: {
          path: slugPath,
          header: z.object({ "Idempotency-Key": S.idempotencyKeyHeaderSchema.optional() }),
        },
        requestBody: jsonRequest(S.rollbackBodySchema),
        responses: { 200: jsonResponse(S.rollbackResponseSchema) },
        errors: ["invalid_request", "auth_required", "not_found", "conflict", "rate_limited", "upstream_unavailable"],
      },
    },
    "/drops/{slug}/aliases": {
      get: {
        operationId: "listAliases",
        summary: "The drop's aliases, by name",
        description: "Each alias points at a retained version, served at https://<slug>---<name>.<serve domain>/.",
        security: anyCredential,
        requestParams: { path: slugPath },
        responses: { 200: jsonResponse(S.aliasListSchema) },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
    "/drops/{slug}/aliases/{name}": {
      put: {
        operationId: "setAlias",
        summary: "Create an alias or move it to another retained version",
        description: `A drop has at most ${limits.free.aliasesPerDrop} aliases on the free plan, ${limits.pro.aliasesPerDrop} on pro and ${limits.team.aliasesPerDrop} on team (anonymous drops none); past the cap, 400 invalid_request with limit max_aliases. An aliased version is never pruned. A disabled drop's aliases cannot be written (403).`,
        security: anyCredential,
        requestParams: {
          path: aliasPath,
          header: z.object({ "Idempotency-Key": S.idempotencyKeyHeaderSchema.optional() }),
        },
        requestBody: jsonRequest(S.aliasBodySchema),
        responses: { 200: jsonResponse(S.aliasSchema) },
        errors: [
          "invalid_request",
          "invalid_name",
          "auth_required",
          "forbidden",
          "not_found",
          "conflict",
          "rate_limited",
          "upstream_unavailable",
        ],
      },
      delete: {
        operationId: "deleteAlias",
        summary: "Delete an alias (its host answers 404 from then on)",
        security: anyCredential,
        requestParams: {
          path: aliasPath,
          header: z.object({ "Idempotency-Key": S.idempotencyKeyHeaderSchema.optional() }),
        },
        responses: { 204: { description: "Deleted." } },
        errors: ["invalid_name", "auth_required", "forbidden", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
  }),
} satisfies Resource;

const aliasPath = slugPath.extend({
  name: z.string().describe("The alias: 1 to 16 lowercase letters, digits and single hyphens; not v and digits only."),
});
