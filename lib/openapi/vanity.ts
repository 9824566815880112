import * as S from "../schemas";
import { anyCredential, jsonRequest, jsonResponse, type Resource } from "./operation";

// Vanity subdomains (Team plan): GET and POST /vanity.

export const vanity = {
  tag: "vanity",
  schemas: { Vanity: S.vanityResponseSchema, VanityBody: S.vanityBodySchema, VanityClaim: S.vanityClaimResponseSchema },
  paths: () => ({
    "/vanity": {
      get: {
        operationId: "getVanity",
        summary: "The account's vanity subdomain, or null",
        security: anyCredential,
        responses: { 200: jsonResponse(S.vanityResponseSchema) },
        errors: ["auth_required", "rate_limited", "upstream_unavailable"],
      },
      post: {
        operationId: "claimVanity",
        summary: "Claim a vanity subdomain (Team plan)",
        description:
          "One per account, first come first served. Named drops then serve at https://<sub>--<name>.<serve_domain>/.",
        security: anyCredential,
        requestBody: jsonRequest(S.vanityBodySchema),
        responses: { 201: jsonResponse(S.vanityClaimResponseSchema) },
        errors: [
          "invalid_request",
          "auth_required",
          "subscription_required",
          "conflict",
          "payload_too_large",
          "rate_limited",
          "upstream_unavailable",
        ],
      },
    },
  }),
} satisfies Resource;
