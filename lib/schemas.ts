import { z } from "zod";

// Request and response schemas, named per resource, in one place: they validate requests and
// type the code, and the MCP tool schemas and the OpenAPI document are generated from them.

export const NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,40}$/;
export const VANITY_PATTERN = /^[a-z0-9][a-z0-9-]{1,18}[a-z0-9]$/;
export const planSchema = z.enum(["free", "pro", "team"]);

export const fileValueSchema = z.union([
  z.string().describe("Text content, stored as UTF-8."),
  z.strictObject({
    encoding: z.literal("base64"),
    content: z.string().describe("Base64 (RFC 4648, standard alphabet) of the file's bytes."),
  }),
]);

export const filesBodySchema = z.object({
  files: z
    .record(z.string(), fileValueSchema)
    .describe("Map from relative path (e.g. index.html, assets/app.js) to content."),
});
export type FilesBody = z.infer<typeof filesBodySchema>;

export const ttlSchema = z.int().min(60).describe("Lifetime in seconds (minimum 60).");
export const nameSchema = z.string().regex(NAME_PATTERN).describe("Named drop alias (subscribers): ^[a-z0-9][a-z0-9-]{0,40}$.");

export const deployQuerySchema = z.object({
  ttl: z.string().optional(),
  name: z.string().optional(),
});

const isoDate = z.iso.datetime({ offset: true });

export const deployResponseSchema = z.object({
  slug: z.string(),
  url: z.url(),
  files: z.array(z.string()),
  plan: planSchema,
  expires_at: isoDate.nullable(),
  name: z.string().optional(),
  replaced: z.boolean().optional(),
  claim_token: z.string().optional().describe("Anonymous deploys only: one-time token to claim the drop after logging in."),
});
export type DeployResponse = z.infer<typeof deployResponseSchema>;

export const appendResponseSchema = z.object({
  slug: z.string(),
  url: z.url(),
  files: z.array(z.string()),
  total_files: z.int(),
  plan: planSchema,
  expires_at: isoDate.nullable(),
});
export type AppendResponse = z.infer<typeof appendResponseSchema>;

export const dropSchema = z.object({
  slug: z.string(),
  url: z.url(),
  name: z.string().nullable(),
  file_count: z.int(),
  redeploy_count: z.int(),
  created_at: isoDate,
  updated_at: isoDate,
  expires_at: isoDate.nullable(),
});
export type Drop = z.infer<typeof dropSchema>;

export const errorEnvelopeSchema = z.object({
  error: z.string(),
  code: z.string(),
  hint: z.string().optional(),
  upgrade_url: z.url().optional(),
  docs_url: z.url().optional(),
});
