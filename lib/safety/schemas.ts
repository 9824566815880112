import { z } from "zod";
import { reportLimits } from "../plans";
import { LIST_LIMIT_MAX, MAX_OFFSET } from "../schemas";

// The schemas of trust and safety: reports and the operator routes, reused for validation,
// types, the MCP report_abuse tool and the OpenAPI document (tag operators).

const codePoints = (max: number) => (s: string) => [...s].length <= max;

export const reportReasons = ["phishing", "malware", "spam", "illegal", "copyright", "other", "appeal"] as const;
/** What an operator names when disabling a drop or suspending an account (the 451 page says it). */
export const reasonCategories = ["phishing", "malware", "spam", "illegal", "copyright", "other"] as const;

export const reportBodySchema = z.object({
  url: z
    .string()
    .max(2048)
    .describe("A drop URL of this service: slug host, vanity host or active custom domain; any path."),
  reason: z.enum(reportReasons),
  details: z
    .string()
    .refine(codePoints(reportLimits.detailsChars), `at most ${reportLimits.detailsChars} characters`)
    .optional()
    .describe(`What is wrong, at most ${reportLimits.detailsChars} characters.`),
  contact: z.email().max(320).optional().describe("An email address to answer the reporter at (optional)."),
});
export type ReportBody = z.infer<typeof reportBodySchema>;

export const reportReceivedSchema = z.object({ id: z.string(), status: z.literal("received") });

export const reportSchema = z.object({
  id: z.string(),
  url: z.string(),
  slug: z.string(),
  reason: z.enum(reportReasons),
  details: z.string().nullable(),
  contact: z.string().nullable(),
  status: z.enum(["open", "resolved"]),
  created_at: z.iso.datetime(),
});

const note = z
  .string()
  .refine(codePoints(2000), "at most 2000 characters")
  .optional()
  .describe("For the audit log only; never shown publicly.");

export const disableBodySchema = z.object({ reason: z.enum(reasonCategories), note });
export const suspendBodySchema = z.object({ reason: z.enum(reasonCategories), note });
export const resolveBodySchema = z.object({ action: z.enum(["dismissed", "disabled", "deleted"]), note });

export const blockBodySchema = z.object({
  cidr: z.string().max(64).describe("An IPv4 or IPv6 range, e.g. 203.0.113.0/24 or 2001:db8::/32."),
  reason: z.string().min(1).refine(codePoints(500), "at most 500 characters"),
  expires_in: z
    .int()
    .min(1)
    .max(10 * 365 * 86_400)
    .optional()
    .describe("Seconds until the block lapses; none: never."),
});

export const disabledSchema = z.object({ reason: z.string(), at: z.iso.datetime() }).nullable();

export const dropDisabledResponseSchema = z.object({ slug: z.string(), disabled: disabledSchema });

export const accountSuspensionSchema = z.object({
  id: z.string(),
  suspended: z.object({ reason: z.string(), at: z.iso.datetime() }).nullable(),
});

export const blockSchema = z.object({
  id: z.string(),
  cidr: z.string(),
  reason: z.string(),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime().nullable(),
});

export const findingSchema = z.object({
  rule: z.string(),
  file: z.string(),
  line: z.int(),
  excerpt: z.string(),
  action: z.enum(["refused", "flagged"]),
  created_at: z.iso.datetime(),
});

export const queueItemSchema = z.object({
  slug: z.string(),
  url: z.string(),
  owner: z.object({ id: z.string(), email: z.string().nullable() }).nullable(),
  reports: z.object({
    count: z.int().describe("Distinct reporting addresses."),
    reasons: z.record(z.string(), z.int()),
    first_at: z.iso.datetime().nullable(),
    last_at: z.iso.datetime().nullable(),
  }),
  findings: z.array(findingSchema),
  disabled: disabledSchema,
  screenshot_url: z
    .url()
    .optional()
    .describe(
      "The desktop screenshot of the drop's latest render check (a report starts one when the server has a browser); absent before any check and while the drop is disabled.",
    ),
});

export const queueResponseSchema = z.object({ total: z.int(), items: z.array(queueItemSchema) });

export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(LIST_LIMIT_MAX).default(50),
  offset: z.coerce.number().int().min(0).max(MAX_OFFSET).default(0),
};
export const queueQuerySchema = z.object({ status: z.enum(["open", "resolved"]).default("open"), ...pageQuery });
export const auditQuerySchema = z.object({
  ...pageQuery,
  actor: z.string().max(200).optional(),
  target: z.string().max(300).optional(),
});

export const auditEntrySchema = z.object({
  id: z.string(),
  at: z.iso.datetime(),
  actor: z.string(),
  action: z.string(),
  target: z.string(),
  reason: z.string().nullable(),
});
export const auditResponseSchema = z.object({ total: z.int(), entries: z.array(auditEntrySchema) });
