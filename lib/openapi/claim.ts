import * as S from "../schemas";
import { anyCredential, jsonRequest, jsonResponse, type Resource } from "./operation";

// Claiming an anonymous drop into an account: POST /claim.

export const claim = {
  tag: "drops",
  schemas: { ClaimBody: S.claimBodySchema, ClaimResponse: S.claimResponseSchema },
  paths: ({ rate }) => ({
    "/claim": {
      post: {
        operationId: "claimDrop",
        summary: "Claim an anonymous drop with its claim_token",
        description: `One-time. Wrong or used token, or unknown slug: 404. Past the claim window: 410. ${rate.claim.max} claims per ${rate.claim.windowSeconds} seconds per client address.`,
        security: anyCredential,
        requestBody: jsonRequest(S.claimBodySchema),
        responses: { 200: jsonResponse(S.claimResponseSchema) },
        errors: [
          "invalid_request",
          "auth_required",
          "not_found",
          "gone",
          "payload_too_large",
          "rate_limited",
          "upstream_unavailable",
        ],
      },
    },
  }),
} satisfies Resource;
