import { z } from "zod";
import { reviewLimits } from "../plans";
import * as S from "../schemas";
import { anyCredential, jsonRequest, jsonResponse, reviewCredential, slugPath, type Resource } from "./operation";

// Review (DESIGN round 5, "Review"): review links, and comments pinned on a drop's previews.

const linkPath = slugPath.extend({ id: z.string().describe("The review link's id (rvl_…).") });
const commentPath = slugPath.extend({ id: z.string().describe("The thread's id (cmt_…).") });

const WHO =
  "With an account credential: the drop's owner, or a team's viewer and up. With a review link (Bearer rl_…): that link's drop only (another drop answers 404).";

export const review = {
  tag: "review",
  schemas: {
    Comment: S.commentSchema,
    CommentList: S.commentListSchema,
    ReviewLinkCreated: S.reviewLinkCreatedSchema,
    ReviewLinkList: S.reviewLinkListSchema,
  },
  paths: ({ rate }) => ({
    "/drops/{slug}/review-links": {
      post: {
        operationId: "createReviewLink",
        summary: "Mint a review link (BASE_URL/review/<token>)",
        description: `Whoever holds the link may read and add comments on this drop (and see its pages in the review view), nothing else, until it expires (${reviewLimits.linkDaysMin} to ${reviewLimits.linkDaysMax} days, default ${reviewLimits.linkDaysDefault}) or is revoked. The token is shown once, here; it is stored hashed. Owner, or a team's members and up (a viewer: 403); a disabled drop's links cannot be written (403).`,
        security: anyCredential,
        requestParams: { path: slugPath },
        requestBody: jsonRequest(S.createReviewLinkBodySchema, false),
        responses: { 201: jsonResponse(S.reviewLinkCreatedSchema, "Created.") },
        errors: ["invalid_request", "auth_required", "forbidden", "not_found", "rate_limited", "upstream_unavailable"],
      },
      get: {
        operationId: "listReviewLinks",
        summary: "The drop's usable review links (never their tokens)",
        security: anyCredential,
        requestParams: { path: slugPath },
        responses: { 200: jsonResponse(S.reviewLinkListSchema) },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
    "/drops/{slug}/review-links/{id}": {
      delete: {
        operationId: "revokeReviewLink",
        summary: "Revoke a review link at once",
        description: "Its holder's next request answers 401 and its review page 404.",
        security: anyCredential,
        requestParams: { path: linkPath },
        responses: { 204: { description: "Revoked." } },
        errors: ["auth_required", "forbidden", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
    "/drops/{slug}/comments": {
      post: {
        operationId: "createComment",
        summary: "Start a comment thread on a page of a version, pinned or page-level",
        description: `${WHO} A pin's x and y are CSS pixels of the full page at its width (1280 or 390). A link holder sends name. At most ${reviewLimits.openCommentsPerDrop} open threads per drop (past it, 400 invalid_request with limit max_open_comments); ${rate.commentLink.max} comments an hour per review link and ${rate.commentAddress.max} per client address (429 past them). Webhook comment.created.`,
        security: reviewCredential,
        requestParams: { path: slugPath },
        requestBody: jsonRequest(S.createCommentBodySchema),
        responses: { 201: jsonResponse(S.commentSchema, "Created.") },
        errors: ["invalid_request", "auth_required", "forbidden", "not_found", "rate_limited", "upstream_unavailable"],
      },
      get: {
        operationId: "listComments",
        summary: "The drop's comment threads, open ones first",
        description: `${WHO} A thread on a version no longer kept stays, with version_pruned: true.`,
        security: reviewCredential,
        requestParams: {
          path: slugPath,
          query: z.object({
            status: z.enum(["open", "resolved", "all"]).optional().describe("Which threads (default open)."),
            version: z.string().optional().describe("Only threads on this version."),
            path: z.string().optional().describe("Only threads on this page (/index.html is /)."),
          }),
        },
        responses: { 200: jsonResponse(S.commentListSchema) },
        errors: ["invalid_request", "auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
    "/drops/{slug}/comments/{id}": {
      patch: {
        operationId: "setCommentStatus",
        summary: "Resolve or reopen a thread",
        description:
          "The drop's owner, or a team's members and up (a viewer or a review link: 403). Resolving sends the webhook comment.resolved.",
        security: reviewCredential,
        requestParams: { path: commentPath },
        requestBody: jsonRequest(S.commentStatusBodySchema),
        responses: { 200: jsonResponse(S.commentSchema) },
        errors: ["invalid_request", "auth_required", "forbidden", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
    "/drops/{slug}/comments/{id}/replies": {
      post: {
        operationId: "replyToComment",
        summary: "Reply to a thread",
        description: `${WHO} Counts against the same hourly rates as new comments.`,
        security: reviewCredential,
        requestParams: { path: commentPath },
        requestBody: jsonRequest(S.replyBodySchema),
        responses: { 201: jsonResponse(S.commentReplySchema, "Created.") },
        errors: ["invalid_request", "auth_required", "forbidden", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
  }),
} satisfies Resource;
