import * as S from "../schemas";
import { limits } from "../plans";
import { anyCredential, jsonResponse, slugPath, type Resource } from "./operation";

// A drop's counts: GET /drops/{slug}/stats.

export const stats = {
  tag: "drops",
  schemas: { DropStats: S.dropStatsSchema },
  paths: () => ({
    "/drops/{slug}/stats": {
      get: {
        operationId: "getDropStats",
        summary: "A drop's counts per UTC day: views, visitors, requests, bytes, 404s, bots, link previews",
        description:
          "Counted by the data plane itself, with no script and no cookie; nothing stored names a visitor. " +
          "Each request counts in one of views, requests, bot_requests (the isbot package) or previews (link unfurlers, recognised first). " +
          "Counts are visible within 15 seconds. Default range: today and the 6 days before. " +
          `The range must lie within the plan's retention (free ${limits.free.statsRetentionDays} days, pro ${limits.pro.statsRetentionDays}, team ${limits.team.statsRetentionDays}): ` +
          'an earlier from answers 400 invalid_request with details.limit "stats_retention_days"; a malformed date, from after to, or to after today answer 400 too. ' +
          "An anonymous drop is counted from its first view; its counts are readable once it is claimed.",
        security: anyCredential,
        requestParams: { path: slugPath, query: S.statsQuerySchema },
        responses: { 200: jsonResponse(S.dropStatsSchema) },
        errors: ["invalid_request", "auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
  }),
} satisfies Resource;
