import { z } from "zod";

// Taking a site back out: a version's files list and what read_file answers (the archive and a
// file's bytes are not JSON).

export const versionFileSchema = z.object({
  path: z
    .string()
    .describe("The file's path in the drop, e.g. `assets/app.js` (`_redirects` and `_headers` included)."),
  size: z.int().min(0).describe("Bytes."),
  hash: z.string().describe("SHA-256 of the bytes, lowercase hex (the hash deploys by reference use)."),
  content_type: z.string().describe("The Content-Type the drop host serves the file with."),
});

export const versionFilesSchema = z.object({
  version: z.int().min(1).describe("The version listed (the live one unless `version` was given)."),
  files: z.array(versionFileSchema).describe("Every file of the version, by path."),
});
export type VersionFiles = z.infer<typeof versionFilesSchema>;

export const readFileResultSchema = z.object({
  slug: z.string(),
  version: z.int().min(1),
  path: z.string(),
  size: z.int().min(0),
  hash: z.string(),
  content_type: z.string(),
  text: z
    .string()
    .optional()
    .describe("The file's text (UTF-8), when it is a text file of at most the read_file text limit."),
  url: z
    .url()
    .optional()
    .describe("Otherwise: a signed URL that answers the file's bytes until `expires_at` (no credential needed)."),
  expires_at: z.string().optional().describe("When `url` stops working (ISO 8601)."),
});
export type ReadFileResult = z.infer<typeof readFileResultSchema>;
