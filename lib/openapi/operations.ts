import { z } from "zod";
import * as S from "../schemas";
import { jsonResponse, noCredential, type Resource } from "./operation";

// For operators: GET /healthz, the cron jobs GET /cron/cleanup and GET /cron/webhooks, and this document.

export const operations = {
  tag: "operations",
  schemas: {
    Health: S.healthResponseSchema,
    CleanupResult: S.cleanupResponseSchema,
    DeliveryPass: S.deliveryPassSchema,
  },
  paths: () => ({
    "/healthz": {
      get: {
        operationId: "getHealth",
        summary: "Database and storage reachable, and the version (for operators and load balancers)",
        description:
          "200 when both answer; 503 with Retry-After and the same body naming the part that does not. Shows no configuration.",
        security: noCredential,
        responses: {
          200: jsonResponse(S.healthResponseSchema),
          503: {
            ...jsonResponse(S.healthResponseSchema, "Degraded: the body names the part that does not answer."),
            headers: z.object({ "Retry-After": z.int().min(0).describe("Seconds to wait before asking again.") }),
          },
        },
        errors: [],
      },
    },
    "/cron/cleanup": {
      get: {
        operationId: "cleanup",
        summary: "Purge expired drops (cron job)",
        description:
          "Guarded by CRON_SECRET, sent as a Bearer credential. Answers 404 when CRON_SECRET is not configured. Idempotent.",
        security: [{ cronSecret: [] }],
        responses: { 200: jsonResponse(S.cleanupResponseSchema) },
        errors: ["auth_required", "not_found", "upstream_unavailable"],
      },
    },
    "/cron/webhooks": {
      get: {
        operationId: "deliverWebhooks",
        summary: "Deliver due webhook events (cron job, Vercel)",
        description:
          "Guarded by CRON_SECRET, sent as a Bearer credential. Answers 404 when CRON_SECRET is not configured. Self-hosted, the app process delivers by itself.",
        security: [{ cronSecret: [] }],
        responses: { 200: jsonResponse(S.deliveryPassSchema) },
        errors: ["auth_required", "not_found", "upstream_unavailable"],
      },
    },
    "/openapi.json": {
      get: {
        operationId: "openapi",
        summary: "This document",
        security: noCredential,
        responses: { 200: jsonResponse(z.looseObject({}), "OpenAPI 3.1 document.") },
        errors: [],
      },
    },
  }),
} satisfies Resource;
