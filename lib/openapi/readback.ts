import { z } from "zod";
import * as S from "../schemas";
import { READ_FILE_TEXT_BYTES, SIGNED_READ_SECONDS } from "../plans";
import { anyCredential, jsonResponse, mb, optionalCredential, slugPath, type Resource } from "./operation";

// Taking a site back out: a version as a zip, its files listed, one file's bytes (also through
// the signed read URLs MCP read_file hands out).

const versionQuery = z.object({
  version: z
    .string()
    .regex(/^\d+$/)
    .optional()
    .describe("A retained version (decimal digits); the live one when absent. Unknown or pruned: 404."),
});

const READ_BACK =
  "The answer is an attachment (`Content-Disposition: attachment`) with `X-Content-Type-Options: nosniff` and `Content-Security-Policy: sandbox`, never cached (`Cache-Control: private, no-store`). Whatever the drop's access mode: the credential is the owner's, or a team member's (viewer and up).";

export const readback = {
  tag: "drops",
  schemas: { VersionFiles: S.versionFilesSchema },
  paths: () => ({
    "/drops/{slug}/archive": {
      get: {
        operationId: "getDropArchive",
        summary: "A version of the drop as a .zip, streamed",
        description:
          'Every file of the version at its path, `_redirects` and `_headers` included, byte for byte; `Content-Disposition: attachment; filename="<slug>-v<N>.zip"`. ' +
          "The archive is written as it is read (never whole in memory), so it has no Content-Length. Text entries are deflated as long as the archive stays within the deploy's decompression ratio, so the zip deploys again as it is (POST /deploy/{slug} with it answers `unchanged`). " +
          READ_BACK,
        security: anyCredential,
        requestParams: { path: slugPath, query: versionQuery },
        responses: {
          200: {
            description: "The zip archive.",
            content: { "application/zip": { schema: { type: "string", format: "binary" } } },
          },
        },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
    "/drops/{slug}/files": {
      get: {
        operationId: "listDropFiles",
        summary: "Every file of a version: path, size, SHA-256, content type",
        description:
          "`hash` is the SHA-256 (hex) deploys by reference use; `content_type` is what the drop host serves. `_redirects` and `_headers` are listed as files.",
        security: anyCredential,
        requestParams: { path: slugPath, query: versionQuery },
        responses: { 200: jsonResponse(S.versionFilesSchema) },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
    "/drops/{slug}/files/{path}": {
      get: {
        operationId: "readDropFile",
        summary: "One file of a version, its bytes",
        description:
          "`path` is the file's path in the drop, slashes included, each segment percent-encoded (`docs/caf%C3%A9.html`). The bytes with the file's content type and Content-Length. A path the version does not have: 404. " +
          READ_BACK +
          ` With \`expires\` and \`signature\` (the URL MCP read_file gives for a binary file or text over ${mb(READ_FILE_TEXT_BYTES)}), no credential is read: the URL answers for ${SIGNED_READ_SECONDS / 60} minutes, and a changed path, version, expiry or signature answers 403 forbidden.`,
        security: optionalCredential,
        requestParams: {
          path: z.object({
            slug: z.string().describe("The drop's slug."),
            path: z.string().describe("The file's path in the drop (may contain slashes)."),
          }),
          query: versionQuery.extend({
            expires: z.string().optional().describe("A signed read URL's expiry (Unix seconds)."),
            signature: z.string().optional().describe("A signed read URL's signature."),
          }),
        },
        responses: {
          200: {
            description: "The file's bytes.",
            content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
          },
        },
        errors: ["auth_required", "forbidden", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
  }),
} satisfies Resource;
