import * as S from "../schemas";
import { jsonResponse, optionalCredential, type Resource } from "./operation";

// The caller's limits: GET /limits.

export const limitsResource = {
  tag: "account",
  schemas: { Limits: S.limitsResponseSchema },
  paths: () => ({
    "/limits": {
      get: {
        operationId: "getLimits",
        summary: "The limits that apply to the caller",
        description: "Without a credential, the anonymous limits.",
        security: optionalCredential,
        responses: { 200: jsonResponse(S.limitsResponseSchema) },
        errors: ["auth_required", "upstream_unavailable"],
      },
    },
  }),
} satisfies Resource;
