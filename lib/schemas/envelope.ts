import { z } from "zod";
import { limitNames } from "../errors";
import { RULE_REFUSALS_LISTED } from "../plans";

// The error envelope every route answers with (lib/errors.ts names the codes and statuses).

export const errorEnvelopeSchema = z.object({
  error: z.string(),
  code: z.string(),
  hint: z.string().optional(),
  upgrade_url: z.url().optional(),
  docs_url: z.url().optional(),
  request_id: z
    .string()
    .optional()
    .describe("The request's X-Request-Id: the id of its line in the server's log, to quote when reporting a problem."),
  unusable: z
    .array(z.string())
    .optional()
    .describe(
      "Deploys by reference: the hashes that cannot be used (never uploaded by this caller, expired, or of another size).",
    ),
  limit: z
    .enum(limitNames)
    .optional()
    .describe("The limit the request reached, named as GET /limits reports it (limits.<name>)."),
  allowed: z.number().optional().describe("That limit's value for the caller (bytes, files, seconds or a ratio)."),
  plan: z
    .enum(["anonymous", "free", "pro", "team"])
    .optional()
    .describe("The caller's plan, when the limit depends on it."),
  field: z.string().optional().describe("The input that failed validation, as a dotted path (files.index.html, ttl)."),
  live_version: z.int().optional().describe("409 conflict of a stale If-Match: the drop's live version now."),
  errors: z
    .array(z.object({ file: z.string(), line: z.int().min(1), reason: z.string() }))
    .max(RULE_REFUSALS_LISTED)
    .optional()
    .describe(
      `A refused _redirects or _headers: every bad line (at most ${RULE_REFUSALS_LISTED}), in line order; the message names the first.`,
    ),
  findings: z
    .array(z.object({ rule: z.string(), file: z.string(), line: z.int(), excerpt: z.string() }))
    .optional()
    .describe(
      "422 content_refused: what the deploy scan found (rule, file, line, an excerpt of at most 120 characters).",
    ),
});
