import { z } from "zod";
import { WEBHOOK_EVENT_TYPES } from "../patterns";
import { limits, WEBHOOK_LOG_SHOWN, WEBHOOK_RETRY_SECONDS } from "../plans";
import * as S from "../schemas";
import { anyCredential, jsonRequest, jsonResponse, type Resource } from "./operation";

// Webhooks: POST/GET /webhooks, DELETE /webhooks/{id}, GET /webhooks/{id}/deliveries. The body
// each delivery POSTs is the WebhookEvent schema (docs/webhooks.md).

const idPath = z.object({ id: z.string().describe("The webhook's id (wh_…).") });
const retryHours = Math.round(WEBHOOK_RETRY_SECONDS.reduce((a, b) => a + b, 0) / 3600);

export const webhooks = {
  tag: "webhooks",
  schemas: {
    WebhookBody: S.webhookBodySchema,
    WebhookCreated: S.webhookCreatedSchema,
    WebhookList: S.webhooksListSchema,
    WebhookDeleted: S.webhookDeletedSchema,
    WebhookDeliveries: S.webhookDeliveriesSchema,
    WebhookEvent: S.webhookPayloadSchema,
  },
  paths: () => ({
    "/webhooks": {
      post: {
        operationId: "addWebhook",
        summary: "Add a webhook (its signing secret is shown once)",
        description:
          `Events (${WEBHOOK_EVENT_TYPES.join(", ")}) are POSTed as the WebhookEvent schema, signed by the Standard Webhooks scheme ` +
          `(webhook-id, webhook-timestamp, webhook-signature), retried with exponential backoff for about ${retryHours} hours until a 2xx. ` +
          `The url must be https and resolve to public addresses (unless the server sets WEBHOOKS_ALLOW_PRIVATE=1). ` +
          `At most ${limits.free.maxWebhooks} webhooks per account on free, ${limits.pro.maxWebhooks} on pro, ${limits.team.maxWebhooks} on team.`,
        security: anyCredential,
        requestBody: jsonRequest(S.webhookBodySchema),
        responses: { 201: jsonResponse(S.webhookCreatedSchema) },
        errors: ["invalid_request", "auth_required", "payload_too_large", "rate_limited", "upstream_unavailable"],
      },
      get: {
        operationId: "listWebhooks",
        summary: "List your webhooks (without secrets)",
        security: anyCredential,
        responses: { 200: jsonResponse(S.webhooksListSchema) },
        errors: ["auth_required", "rate_limited", "upstream_unavailable"],
      },
    },
    "/webhooks/{id}": {
      delete: {
        operationId: "removeWebhook",
        summary: "Remove a webhook (what it is still owed is dropped)",
        security: anyCredential,
        requestParams: { path: idPath },
        responses: { 200: jsonResponse(S.webhookDeletedSchema) },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
    "/webhooks/{id}/deliveries": {
      get: {
        operationId: "listWebhookDeliveries",
        summary: "A webhook's latest delivery attempts",
        description: `The newest ${WEBHOOK_LOG_SHOWN} attempts, newest first: one entry per attempt, so a retried event appears once per attempt.`,
        security: anyCredential,
        requestParams: { path: idPath },
        responses: { 200: jsonResponse(S.webhookDeliveriesSchema) },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
  }),
} satisfies Resource;
