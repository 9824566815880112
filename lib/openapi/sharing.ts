import { z } from "zod";
import * as S from "../schemas";
import { SHARE_LINK_MAX_HOURS, VIEWERS_KEPT_DAYS } from "../plans";
import { anyCredential, jsonRequest, jsonResponse, slugPath, type Resource } from "./operation";

// Sharing with named people: GET /drops/{slug}/viewers (and the share links).

export const sharing = {
  tag: "drops",
  schemas: {
    Viewers: S.viewersResponseSchema,
    ShareLinkCreated: S.shareLinkCreatedSchema,
    ShareLinkList: S.shareLinkListSchema,
  },
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
    "/drops/{slug}/share-links": {
      post: {
        operationId: "createShareLink",
        summary: "A link that opens a password or emails drop for whoever has it, until it expires",
        description:
          `expires_in_hours is a required whole number, 1 to ${SHARE_LINK_MAX_HOURS}. The url is on the drop's host (shown once; only a keyed hash is stored): opening it sets the drop's host-only access cookie there and nowhere else. ` +
          "A public or members drop answers 400 invalid_request. Owner, or a team credential from the member role up (a viewer: 403 forbidden); a disabled drop: 403 forbidden. " +
          "Revoked by DELETE and by any change of the drop's access mode; either ends the cookies it set at once.",
        security: anyCredential,
        requestParams: { path: slugPath },
        requestBody: jsonRequest(S.shareLinkBodySchema),
        responses: { 201: jsonResponse(S.shareLinkCreatedSchema, "Created.") },
        errors: ["invalid_request", "auth_required", "forbidden", "not_found", "rate_limited", "upstream_unavailable"],
      },
      get: {
        operationId: "listShareLinks",
        summary: "The drop's share links that still work (not revoked, not expired)",
        security: anyCredential,
        requestParams: { path: slugPath },
        responses: { 200: jsonResponse(S.shareLinkListSchema) },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
    "/drops/{slug}/share-links/{id}": {
      delete: {
        operationId: "deleteShareLink",
        summary: "Revoke a share link: the cookies it set stop at once",
        security: anyCredential,
        requestParams: { path: slugPath.extend({ id: z.string().describe("The link's id (shl_…).") }) },
        responses: { 204: { description: "Revoked." } },
        errors: ["auth_required", "forbidden", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
  }),
} satisfies Resource;
