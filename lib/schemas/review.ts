import { z } from "zod";
import { reviewLimits } from "../plans";
import { isoDate } from "./common";

// Review (DESIGN round 5, "Review"): review links, comment threads pinned on a page of a
// version, their replies, and the filters of the list.

const chars = (s: string) => [...s].length;
// NUL, the C0 controls other than tab and line breaks, DEL, C1; a surrogate without its partner.
/* eslint-disable no-control-regex */
const BAD_TEXT =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/* eslint-enable no-control-regex */

/** A comment's or reply's body: text (never HTML to us), 1 to 2,000 characters, not blank. */
export const commentBodySchema = z
  .string()
  .refine((s) => s.trim() !== "", "the body is empty")
  .refine((s) => chars(s) <= reviewLimits.bodyChars, `at most ${reviewLimits.bodyChars} characters`)
  .refine((s) => !BAD_TEXT.test(s), "control characters are not allowed")
  .describe(`Plain text, 1 to ${reviewLimits.bodyChars} characters; shown as text, never as HTML.`);

/** A link holder's name (accounts are named by their email; a name they send is ignored). */
export const reviewerNameSchema = z
  .string()
  .transform((s) => s.trim())
  .refine((s) => s !== "" && chars(s) <= reviewLimits.nameChars, `1 to ${reviewLimits.nameChars} characters`)
  .refine((s) => !BAD_TEXT.test(s) && !/[\n\r\t]/.test(s), "control characters are not allowed")
  .describe(
    `Review-link holders only, and required for them: the name shown with the comment (1 to ${reviewLimits.nameChars} characters). Ignored for accounts, whose name is their email.`,
  );

export const commentPinSchema = z
  .object({
    width: z
      .union([z.literal(reviewLimits.pinWidths[0]), z.literal(reviewLimits.pinWidths[1])])
      .describe("The page width the pin was placed at: 1280 (desktop) or 390 (phone)."),
    x: z.number().min(0).describe("CSS pixels from the left of the full page, 0 to width."),
    y: z
      .number()
      .min(0)
      .max(reviewLimits.pinMaxY)
      .describe(`CSS pixels from the top of the full page, 0 to ${reviewLimits.pinMaxY}.`),
  })
  .refine((p) => p.x <= p.width, { message: "x is past the width", path: ["x"] })
  .describe("Where on the page the comment points (absent: a page-level comment).");

export const commentPathSchema = z
  .string()
  .min(1)
  .max(1024)
  .refine((s) => s.startsWith("/") && !BAD_TEXT.test(s) && !/[\n\r\t]/.test(s), "a page path starting with /")
  .describe("The page's URL path on the drop as the review page lists it: /, /docs/, /about.html (/index.html is /).");

export const createCommentBodySchema = z.object({
  version: z.int().min(1).describe("A retained version of the drop (unknown or pruned: 404)."),
  path: commentPathSchema,
  body: commentBodySchema,
  pin: commentPinSchema.optional(),
  name: z
    .unknown()
    .optional()
    .describe(reviewerNameSchema.description ?? ""),
});
export type CreateCommentBody = z.infer<typeof createCommentBodySchema>;

export const replyBodySchema = z.object({
  body: commentBodySchema,
  name: z
    .unknown()
    .optional()
    .describe(reviewerNameSchema.description ?? ""),
});

export const commentStatusBodySchema = z.object({
  status: z.enum(["resolved", "open"]).describe("resolved closes the thread; open reopens it."),
});

export const commentsQuerySchema = z.object({
  status: z.enum(["open", "resolved", "all"]).default("open").describe("Which threads (default open)."),
  version: z
    .string()
    .regex(/^[1-9][0-9]{0,8}$/, "a version number")
    .transform(Number)
    .optional()
    .describe("Only threads on this version."),
  path: commentPathSchema.optional().describe("Only threads on this page."),
});
export type CommentsQuery = z.infer<typeof commentsQuerySchema>;

export const commentAuthorSchema = z.object({
  kind: z.enum(["account", "review_link"]),
  name: z.string().describe("An account's email, or the name a review-link holder gave."),
});

export const commentReplySchema = z.object({
  id: z.string(),
  body: z.string(),
  author: commentAuthorSchema,
  created_at: isoDate,
});
export type CommentReply = z.infer<typeof commentReplySchema>;

export const commentSchema = z.object({
  id: z.string(),
  version: z.int(),
  version_pruned: z.boolean().describe("true once the version is no longer kept: the thread stays readable."),
  path: z.string(),
  pin: z.object({ width: z.int(), x: z.number(), y: z.number() }).nullable(),
  body: z.string(),
  author: commentAuthorSchema,
  status: z.enum(["open", "resolved"]),
  created_at: isoDate,
  resolved_at: isoDate.nullable(),
  replies: z.array(commentReplySchema).describe("Oldest first."),
  screenshot_url: z
    .url()
    .nullable()
    .describe(
      "An unguessable BASE_URL/previews/ URL of a PNG crop of the page around the pin (600×400 CSS px); null for a page-level comment or where the server has no browser.",
    ),
});
export type Comment = z.infer<typeof commentSchema>;

export const commentListSchema = z.object({
  total: z.int().describe("Threads matching the filters."),
  comments: z.array(commentSchema).describe("Open threads first, then resolved ones; oldest first within each."),
});
export type CommentList = z.infer<typeof commentListSchema>;

export const createReviewLinkBodySchema = z.object({
  expires_in_days: z
    .int()
    .min(reviewLimits.linkDaysMin)
    .max(reviewLimits.linkDaysMax)
    .default(reviewLimits.linkDaysDefault)
    .describe(
      `Days the link works: ${reviewLimits.linkDaysMin} to ${reviewLimits.linkDaysMax}, default ${reviewLimits.linkDaysDefault}.`,
    ),
  label: z
    .string()
    .max(100)
    .refine((s) => !BAD_TEXT.test(s) && !/[\n\r\t]/.test(s), "control characters are not allowed")
    .optional()
    .describe("A note for the link list (who it was for)."),
});

export const reviewLinkCreatedSchema = z.object({
  id: z.string(),
  url: z.url().describe("BASE_URL/review/<token>; the token (rl_…) is shown once, here."),
  expires_at: isoDate,
});
export type ReviewLinkCreated = z.infer<typeof reviewLinkCreatedSchema>;

export const reviewLinkListSchema = z.object({
  review_links: z
    .array(z.object({ id: z.string(), label: z.string().nullable(), expires_at: isoDate, created_at: isoDate }))
    .describe("Usable links (neither expired nor revoked), newest first."),
});
export type ReviewLinkList = z.infer<typeof reviewLinkListSchema>;
