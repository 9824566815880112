import { z } from "zod";
import * as S from "../schemas";
import { anyCredential, jsonRequest, jsonResponse, noCredential, type Resource } from "./operation";

// Plans and payment: GET /billing/me, POST /billing/checkout, POST /billing/portal, and the
// payment provider's POST /billing/webhook.

export const billing = {
  tag: "billing",
  schemas: {
    Entitlements: S.entitlementsSchema,
    CheckoutBody: S.checkoutBodySchema,
    CheckoutSession: S.checkoutResponseSchema,
    PortalSession: S.portalResponseSchema,
    WebhookAck: S.webhookResponseSchema,
  },
  paths: () => ({
    "/billing/me": {
      get: {
        operationId: "getEntitlements",
        summary: "Plan and subscription state of the account",
        security: anyCredential,
        responses: { 200: jsonResponse(S.entitlementsSchema) },
        errors: ["auth_required", "rate_limited", "upstream_unavailable"],
      },
    },
    "/billing/checkout": {
      post: {
        operationId: "createCheckout",
        summary: "Start a checkout session for a paid plan",
        security: anyCredential,
        requestBody: jsonRequest(S.checkoutBodySchema, false),
        responses: { 200: jsonResponse(S.checkoutResponseSchema) },
        errors: ["invalid_request", "auth_required", "payload_too_large", "rate_limited", "upstream_unavailable"],
      },
    },
    "/billing/portal": {
      post: {
        operationId: "createPortal",
        summary: "Open the payment provider's customer portal",
        security: anyCredential,
        responses: { 200: jsonResponse(S.portalResponseSchema) },
        errors: ["invalid_request", "auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
    "/billing/webhook": {
      post: {
        operationId: "billingWebhook",
        summary: "Payment-provider events (signed; not for API clients)",
        description: "Verified with the Stripe-Signature header; replayed events are acknowledged once.",
        security: noCredential,
        requestParams: { header: z.object({ "Stripe-Signature": z.string() }) },
        requestBody: jsonRequest(z.looseObject({}).describe("A Stripe event.")),
        responses: { 200: jsonResponse(S.webhookResponseSchema) },
        errors: ["invalid_request", "auth_required", "payload_too_large", "upstream_unavailable"],
      },
    },
  }),
} satisfies Resource;
