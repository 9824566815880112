import { z } from "zod";
import * as R from "../safety/schemas";
import type { ErrorCode } from "../errors";
import { anyCredential, jsonRequest, jsonResponse, slugPath, type Operation, type Resource } from "./operation";

// The operator routes (/admin/*): accounts in ADMIN_EMAILS (verified) or granted by
// `npm run admin -- grant-admin`, by Bearer credential or session. Everyone else gets 404.

const idPath = z.object({ id: z.string() });
const ONLY = "Operators only: anyone else gets 404 not_found. Every action is an entry in the audit log.";

const withBody: ErrorCode[] = [
  "invalid_request",
  "not_found",
  "payload_too_large",
  "rate_limited",
  "upstream_unavailable",
];
/** The body of an action that takes no fields: `{}` or none at all. */
const noFields = z.object({});

/**
 * An operator operation: any credential, the operators-only note, a JSON body when `body` is
 * given (optional when it has no fields), and its errors (by default a body's, or 404 and the
 * store's).
 */
const op = ({
  body,
  errors,
  ...o
}: Omit<Operation, "security" | "errors" | "requestBody"> & { body?: z.ZodType; errors?: ErrorCode[] }): Operation => ({
  ...o,
  description: `${o.description ? `${o.description} ` : ""}${ONLY}`,
  security: anyCredential,
  ...(body && { requestBody: jsonRequest(body, body !== noFields) }),
  errors: errors ?? (body ? withBody : ["not_found", "rate_limited", "upstream_unavailable"]),
});

export const operators = {
  tag: "operators",
  schemas: {
    AdminQueue: R.queueResponseSchema,
    AdminReport: R.reportSchema,
    AdminDisableBody: R.disableBodySchema,
    AdminResolveBody: R.resolveBodySchema,
    AdminBlockBody: R.blockBodySchema,
    AdminBlock: R.blockSchema,
    AdminAudit: R.auditResponseSchema,
  },
  paths: () => ({
    "/admin/queue": {
      get: op({
        operationId: "adminQueue",
        summary: "Drops with open reports or scan flags, most reported first",
        requestParams: { query: R.queueQuerySchema },
        responses: { 200: jsonResponse(R.queueResponseSchema) },
        errors: ["invalid_request", "not_found", "rate_limited", "upstream_unavailable"],
      }),
    },
    "/admin/reports/{id}": {
      get: op({
        operationId: "adminReport",
        summary: "One report",
        requestParams: { path: idPath },
        responses: { 200: jsonResponse(R.reportSchema) },
      }),
    },
    "/admin/reports/{id}/resolve": {
      post: op({
        operationId: "adminResolveReport",
        summary: "Resolve every open report of the report's drop: dismissed, disabled or deleted (and do it)",
        requestParams: { path: idPath },
        body: R.resolveBodySchema,
        responses: {
          200: jsonResponse(
            z.object({ id: z.string(), slug: z.string(), action: z.string(), resolved: z.array(z.string()) }),
          ),
        },
      }),
    },
    "/admin/drops/{slug}/disable": {
      post: op({
        operationId: "adminDisableDrop",
        summary: "Disable a drop: 451 on every host and path, no-store, purged, drop.disabled sent, writes refused",
        requestParams: { path: slugPath },
        body: R.disableBodySchema,
        responses: { 200: jsonResponse(R.dropDisabledResponseSchema) },
      }),
    },
    "/admin/drops/{slug}/enable": {
      post: op({
        operationId: "adminEnableDrop",
        summary: "Enable a disabled drop (drop.enabled sent)",
        requestParams: { path: slugPath },
        body: noFields,
        responses: { 200: jsonResponse(R.dropDisabledResponseSchema) },
      }),
    },
    "/admin/drops/{slug}": {
      delete: op({
        operationId: "adminDeleteDrop",
        summary: "Delete a drop with its bytes and purge, as the owner's delete does",
        requestParams: { path: slugPath },
        responses: { 200: jsonResponse(z.object({ deleted: z.string() })) },
      }),
    },
    "/admin/accounts/{id}/suspend": {
      post: op({
        operationId: "adminSuspendAccount",
        summary: "Suspend an account: its drops answer 451, its credentials 403 forbidden, its webhooks pause",
        description: "The id may also be the account's email when only one account has it.",
        requestParams: { path: idPath },
        body: R.suspendBodySchema,
        responses: { 200: jsonResponse(R.accountSuspensionSchema) },
      }),
    },
    "/admin/accounts/{id}/unsuspend": {
      post: op({
        operationId: "adminUnsuspendAccount",
        summary: "End a suspension",
        requestParams: { path: idPath },
        body: noFields,
        responses: { 200: jsonResponse(R.accountSuspensionSchema) },
      }),
    },
    "/admin/blocks": {
      post: op({
        operationId: "adminAddBlock",
        summary: "Block an IPv4 or IPv6 range: anonymous deploys, preflights and reports from it answer 403 forbidden",
        body: R.blockBodySchema,
        responses: { 201: jsonResponse(R.blockSchema) },
      }),
      get: op({
        operationId: "adminListBlocks",
        summary: "The blocks in force",
        responses: { 200: jsonResponse(z.object({ blocks: z.array(R.blockSchema) })) },
      }),
    },
    "/admin/blocks/{id}": {
      delete: op({
        operationId: "adminRemoveBlock",
        summary: "Lift a block",
        requestParams: { path: idPath },
        responses: { 200: jsonResponse(R.blockSchema) },
      }),
    },
    "/admin/audit": {
      get: op({
        operationId: "adminAudit",
        summary: "The audit log, newest first (actor: an account id, cli, scan or system)",
        requestParams: { query: R.auditQuerySchema },
        responses: { 200: jsonResponse(R.auditResponseSchema) },
        errors: ["invalid_request", "not_found", "rate_limited", "upstream_unavailable"],
      }),
    },
  }),
} satisfies Resource;
