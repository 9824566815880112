import * as S from "../schemas";
import { VIEWERS_KEPT_DAYS } from "../plans";
import { anyCredential, jsonResponse, slugPath, type Resource } from "./operation";

// Sharing with named people: GET /drops/{slug}/viewers (and the share links).

export const sharing = {
  tag: "drops",
  schemas: { Viewers: S.viewersResponseSchema },
  paths: () => ({
    "/drops/{slug}/viewers": {
      get: {
        operationId: "listDropViewers",
        summary: "Who came to an emails-only drop: each address whose sign-in link was opened, with its views",
        description:
          "A viewer is an address on the drop's allow list whose one-time sign-in link was opened; views are counted as the stats count them (a GET answered 200 or 304 with HTML, not a bot's or a link unfurler's). " +
          `Owner, or a team credential of the owning team. A viewer not seen for ${VIEWERS_KEPT_DAYS} days is forgotten.`,
        security: anyCredential,
        requestParams: { path: slugPath },
        responses: { 200: jsonResponse(S.viewersResponseSchema) },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
  }),
} satisfies Resource;
