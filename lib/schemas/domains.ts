import { z } from "zod";
import { isoDate } from "./common";

// --- Custom domains (Team plan) ---

export const domainBodySchema = z.object({
  hostname: z
    .string()
    .max(1000)
    .describe(
      "The name to serve the drop at, e.g. docs.example.com; normalised (lowercase, no trailing dot, IDN as punycode).",
    ),
  slug: z
    .string()
    .max(200)
    .describe("The slug of one of the account's drops; a named drop keeps its domain across replaces and rollbacks."),
});

export const domainSchema = z.object({
  hostname: z
    .string()
    .describe("The normal form: lowercase ASCII (punycode for internationalised names), no trailing dot."),
  slug: z.string(),
  status: z
    .enum(["pending", "active"])
    .describe("active: the TXT record was seen and the drop is served at the hostname."),
  verification: z.object({
    type: z.literal("TXT"),
    name: z.string().describe("_dropsite-challenge.<hostname>"),
    value: z.string().describe("The value the TXT record must hold."),
  }),
  target: z.object({
    type: z.literal("CNAME"),
    value: z.string().describe("Where to point the hostname: the drop's own host."),
  }),
  created_at: isoDate,
  verified_at: isoDate.nullable().describe("When the domain last became active; null while it never was."),
});

export const domainsListSchema = z.object({ domains: z.array(domainSchema) });

export const domainCheckSchema = z.object({
  type: z.literal("TXT"),
  name: z.string(),
  ok: z.boolean().describe("Whether a TXT record at name holds the verification value."),
  found: z.array(z.string()).describe("The TXT values found at name (none when it has no record)."),
  error: z.string().optional().describe("Why the look-up failed, when it did (e.g. SERVFAIL, a timeout)."),
});

export const domainVercelSchema = z.object({
  verified: z.boolean().describe("Vercel's own verification of the domain on the project."),
  misconfigured: z
    .boolean()
    .nullable()
    .describe("Vercel's view of the DNS records (true: not pointed at Vercel yet); null when it did not say."),
  verification: z
    .array(z.object({ type: z.string(), domain: z.string(), value: z.string(), reason: z.string() }))
    .optional()
    .describe("Challenges Vercel asks for before it serves the domain."),
});

export const domainVerifyResponseSchema = domainSchema.extend({
  checks: z.array(domainCheckSchema).describe("What the look-up found."),
  vercel: domainVercelSchema
    .optional()
    .describe(
      "What Vercel reports once the domain is added to the project (only when the service runs with a Vercel project).",
    ),
});

export const domainDeleteResponseSchema = z.object({ deleted: z.string() });

export type DomainInfo = z.infer<typeof domainSchema>;
export type DomainVerifyResponse = z.infer<typeof domainVerifyResponseSchema>;
export type DomainCheck = z.infer<typeof domainCheckSchema>;
export type DomainVercel = z.infer<typeof domainVercelSchema>;
