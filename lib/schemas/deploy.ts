import { z } from "zod";
import { isDropName, NAME_PATTERN, SHA256_HEX_PATTERN } from "../patterns";
import { TTL_CEILING_SECONDS } from "../plans";
import { isoDate, planSchema, versionUrlSchema } from "./common";
import { deployRenderSchema } from "./render";

// Deploying: file values, zips by reference, preflight and uploads, lifetimes and names, the
// deploy report and the scan's findings, the answers of a deploy and an append.

export const fileValueSchema = z.union([
  z.string().describe("Text content, stored as UTF-8."),
  z.strictObject({
    encoding: z.literal("base64"),
    content: z.string().describe("Base64 (RFC 4648, standard alphabet) of the file's bytes."),
  }),
  z.strictObject({
    sha256: z
      .string()
      .regex(SHA256_HEX_PATTERN)
      .describe("SHA-256 (lowercase hex) of content already uploaded (POST /deploy/preflight)."),
    size: z.int().min(0).describe("Size in bytes of that content."),
  }),
]);

/** A zip archive by reference: its SHA-256 and size (the preflight's `zip`, and a deploy body's). */
export const zipReferenceSchema = z
  .strictObject({
    sha256: z.string().regex(SHA256_HEX_PATTERN).describe("SHA-256 of the archive's bytes, lowercase hex."),
    size: z.int().min(0).describe("Size of the archive in bytes (at most the plan's zip limit)."),
  })
  .describe(
    'A zip archive by reference: preflight it, PUT its bytes to the target, then deploy {"zip": {sha256, size}} with the same X-Upload-Token.',
  );

/** POST /deploy/preflight: the hash and size of each file to deploy, or of one zip archive. */
export const preflightBodySchema = z
  .object({
    files: z
      .record(
        z.string(),
        z.strictObject({
          sha256: z.string().regex(SHA256_HEX_PATTERN).describe("SHA-256 of the file's bytes, lowercase hex."),
          size: z.int().min(0).describe("Size in bytes."),
        }),
      )
      .optional(),
    zip: zipReferenceSchema.optional(),
  })
  .describe("Exactly one of files (a deploy's files by hash) or zip (one archive, unpacked by the deploy).");

/** A deploy body naming a zip archive uploaded after a preflight. */
export const zipBodySchema = z.strictObject({ zip: zipReferenceSchema });

export const uploadTargetSchema = z.object({
  sha256: z.string(),
  url: z
    .string()
    .describe(
      "Where to PUT the raw bytes: the app's upload route, or, for contents over 4 MB when bytes live in Vercel Blob or an S3 bucket, the store itself (Blob's API, a presigned S3 URL).",
    ),
  method: z.literal("PUT"),
  headers: z
    .record(z.string(), z.string())
    .describe(
      "Headers to send with the PUT, as they are (a Blob target's carry its client token, an S3 target's the x-amz-checksum-sha256 its signature binds).",
    ),
});

export const preflightResponseSchema = z.object({
  missing: z.array(z.string()).describe("Hashes whose bytes must be uploaded before a deploy may reference them."),
  uploads: z.array(uploadTargetSchema),
  upload_token: z
    .string()
    .describe(
      "Send as X-Upload-Token on the deploy (needed by anonymous callers, whose uploads are scoped to this preflight).",
    ),
  expires_at: z.iso
    .datetime({ offset: true })
    .describe("Upload targets, and uploads no deploy has used, expire at this time."),
});
export type PreflightResponse = z.infer<typeof preflightResponseSchema>;

export const uploadResponseSchema = z.object({ sha256: z.string(), size: z.int() });

export const filesBodySchema = z.object({
  files: z
    .record(z.string(), fileValueSchema)
    .describe("Map from relative path (e.g. index.html, assets/app.js) to content."),
});

export const ttlSchema = z
  .int()
  .min(60)
  .max(TTL_CEILING_SECONDS)
  .describe(`Lifetime in seconds (60 to ${TTL_CEILING_SECONDS}; each plan may allow less).`);
export const nameSchema = z
  .string()
  .regex(NAME_PATTERN)
  .refine(isDropName, { message: 'A name cannot contain "---" (it marks preview hosts).' })
  .describe('Named drop alias (subscribers): ^[a-z0-9][a-z0-9-]{0,40}$, without "---".');

export const reportWarningKinds = ["no_index", "large_file", "case_clash", "secret", "not_scanned"] as const;
export const secretKinds = [
  "dropsite_api_key",
  "aws_access_key",
  "github_token",
  "stripe_secret_key",
  "google_api_key",
  "slack_token",
  "private_key",
  "env_file",
] as const;

/** The deploy scan's rules, by their stable names (lib/scan; docs/scanning.md). */
export const scanRules = [
  "credential-form-offsite",
  "exfiltration-endpoint",
  "instant-offsite-redirect",
  "obfuscated-script",
  "executable",
  "brand-lure",
  "web-risk",
] as const;

export const scanFindingSchema = z.object({
  rule: z.enum(scanRules),
  file: z.string().describe("The file (`_redirects` for a redirect target)."),
  line: z.int().min(0).describe("The line of the offending element or call; 0 for a binary file."),
  excerpt: z.string().describe("The offending source, at most 120 characters."),
});

export const deployReportSchema = z
  .object({
    missing_references: z
      .array(
        z.object({
          path: z.string().describe("The file that refers."),
          ref: z.string().describe("The reference as written (without query or fragment)."),
        }),
      )
      .describe(
        "Relative references (src, href, srcset, CSS url() and @import, module imports) that no file of the drop answers.",
      ),
    warnings: z.array(
      z.object({
        path: z.string().optional().describe("The file concerned; absent for warnings about the whole drop."),
        kind: z.enum(reportWarningKinds),
        secret_kind: z
          .enum(secretKinds)
          .optional()
          .describe("kind secret: what the string looks like. The string itself is never shown."),
        message: z.string(),
      }),
    ),
    left_off: z
      .object({ missing_references: z.int().min(0), warnings: z.int().min(0) })
      .optional()
      .describe("Entries not listed because a list reached its cap."),
    redirect_rules: z
      .int()
      .min(0)
      .optional()
      .describe(
        "Rules of the drop's _redirects after this write (0 without one). Always present on deploy and append answers.",
      ),
    header_rules: z
      .int()
      .min(0)
      .optional()
      .describe(
        "Path blocks of the drop's _headers after this write (0 without one). Always present on deploy and append answers.",
      ),
    findings: z
      .array(scanFindingSchema)
      .optional()
      .describe(
        "What the deploy scan found in the files written (rule, file, line, excerpt); the drop is then in the operators' review queue. Absent when it found nothing (or scanning is off).",
      ),
  })
  .describe(
    "What the deploy checked in the files: broken references and likely mistakes. Advisory: the deploy succeeded.",
  );
export type DeployReport = z.infer<typeof deployReportSchema>;

/** `?alias=` (MCP `alias`) on a deploy: the alias now pointing at the new version, and its address. */
export const deployAliasSchema = z
  .object({
    name: z.string(),
    url: z
      .url()
      .nullable()
      .describe("https://<slug>---<name>.<serve domain>/: serves the new version; null past 63 characters."),
  })
  .describe("Present when the deploy was asked for an alias (?alias=): the alias now points at `version`.");

export const deployResponseSchema = z.object({
  slug: z.string(),
  url: z.url(),
  files: z.array(z.string()),
  plan: planSchema,
  expires_at: isoDate.nullable(),
  name: z.string().optional(),
  replaced: z.boolean().optional(),
  claim_token: z
    .string()
    .optional()
    .describe("Anonymous deploys only: one-time token to claim the drop after logging in."),
  report: deployReportSchema.optional(),
  render: deployRenderSchema.optional(),
  version: z
    .int()
    .min(1)
    .describe(
      "The version this deploy made (1 for a new drop); live unless promote=false staged it. Unchanged: the live version.",
    ),
  version_url: versionUrlSchema,
  live_version: z.int().min(1).describe("The drop's live version after this deploy (staged: the one live before)."),
  promoted: z.boolean().describe("true when version is the live version now; false for a staged deploy."),
  alias: deployAliasSchema.optional(),
  open_comments: z.int().min(0).describe("The drop's open review comment threads (GET /drops/{slug}/comments)."),
  unchanged: z
    .boolean()
    .optional()
    .describe(
      "true when the files equal the live version's (same paths and hashes): nothing was written and version is the live one.",
    ),
});
export type DeployResponse = z.infer<typeof deployResponseSchema>;

export const appendResponseSchema = z.object({
  slug: z.string(),
  url: z.url(),
  files: z.array(z.string()),
  total_files: z.int(),
  plan: planSchema,
  expires_at: isoDate.nullable(),
  render: deployRenderSchema.optional(),
  report: deployReportSchema
    .optional()
    .describe("References are checked against the whole drop; the other checks cover the files added."),
  version: z
    .int()
    .min(1)
    .describe("The new version: the live version's files plus these; live unless promote=false staged it."),
  version_url: versionUrlSchema,
  live_version: z.int().min(1).describe("The drop's live version after this append."),
  promoted: z.boolean().describe("true when version is the live version now; false for a staged append."),
  alias: deployAliasSchema.optional(),
  open_comments: z.int().min(0).describe("The drop's open review comment threads (GET /drops/{slug}/comments)."),
});
export type AppendResponse = z.infer<typeof appendResponseSchema>;
