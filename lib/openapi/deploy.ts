import { z } from "zod";
import type { ZodOpenApiRequestBodyObject } from "zod-openapi";
import { TTL_CEILING_SECONDS } from "../deploy/ttl";
import { renderQuery } from "./render";
import { DEPLOY_GRANT_TOKEN_PATTERN, SHA256_HEX_PATTERN } from "../patterns";
import { APP_UPLOAD_MAX_BYTES, DEPLOY_GRANT_SECONDS, limits, UPLOAD_GRANT_SECONDS } from "../plans";
import * as S from "../schemas";
import { anyCredential, jsonRequest, jsonResponse, mb, optionalCredential, slugPath, type Resource } from "./operation";

// Deploying: POST /deploy and POST /deploy/{slug} (three body forms), and the content-addressed
// path beside them: POST /deploy/preflight, then PUT /deploy/uploads/{token}/{sha256}; and the
// one-time deploy URLs of the MCP tool deploy_directory, POST /deploy/once/{token} (+ preflight).

/** The three body forms, chosen by Content-Type, with an example of each. */
const deployBody: ZodOpenApiRequestBodyObject = {
  required: true,
  description:
    "The body form is chosen by Content-Type. Any type that is neither JSON nor zip is stored as index.html.",
  content: {
    "text/html": { schema: z.string(), example: "<!doctype html><h1>Hello</h1>" },
    "application/json": {
      schema: z.union([S.filesBodySchema, S.zipBodySchema]),
      examples: {
        text: {
          summary: "Text files",
          value: { files: { "index.html": "<h1>Hello</h1>", "assets/app.js": "console.log('hi')" } },
        },
        binary: {
          summary: "A binary file, base64",
          value: {
            files: { "index.html": "<img src=dot.png>", "dot.png": { encoding: "base64", content: "iVBORw0KGgo=" } },
          },
        },
        reference: {
          summary: "A file by reference to content uploaded after POST /deploy/preflight",
          value: {
            files: {
              "index.html": "<script src=app.js></script>",
              "app.js": { sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", size: 4 },
            },
          },
        },
        zip: {
          summary:
            'A zip archive by reference, uploaded after POST /deploy/preflight with {"zip": {sha256, size}}; unpacked like a posted zip',
          value: {
            zip: { sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", size: 31457280 },
          },
        },
      },
    },
    "application/zip": {
      schema: z.string().meta({
        contentMediaType: "application/zip",
        description:
          "The bytes of a zip archive (e.g. curl --data-binary @site.zip); a single top-level folder is stripped.",
      }),
    },
  },
};

export const deploy = {
  tag: "deploy",
  schemas: {
    FilesBody: S.filesBodySchema,
    ZipBody: S.zipBodySchema,
    DeployResponse: S.deployResponseSchema,
    AppendResponse: S.appendResponseSchema,
    PreflightBody: S.preflightBodySchema,
    PreflightResponse: S.preflightResponseSchema,
    UploadResponse: S.uploadResponseSchema,
  },
  paths: ({ rate }) => {
    const { anonymous: anon, free, pro } = limits;
    const ttl = S.ttlSchema
      .max(TTL_CEILING_SECONDS)
      .optional()
      .meta({
        description: `Lifetime in seconds, at least ${free.ttlMinSeconds}. Anonymous: at most ${anon.ttlMaxSeconds ?? TTL_CEILING_SECONDS} (the default). Free accounts: at most ${free.ttlMaxSeconds ?? TTL_CEILING_SECONDS} (the default). Subscribers: up to ${TTL_CEILING_SECONDS} (100 years); default no expiry.`,
      });
    const name = S.nameSchema.optional().meta({
      description:
        "Named drop (subscribers): redeploying the same name replaces the content and keeps the URL. Without a credential: 401.",
    });
    const alias = z
      .string()
      .optional()
      .describe(
        "Points this alias of the drop at the new version in the same request (created, or moved; <slug>---<alias> serves it), e.g. alias=pr-42 with promote=false. An account's deploys only (anonymous: 400 invalid_request); a bad name: 400 invalid_name; past the plan's aliases per drop: 400 invalid_request (max_aliases) and nothing deployed. The answer then carries alias {name, url}.",
      );
    const promote = z
      .enum(["true", "false"])
      .optional()
      .describe(
        "false: a redeploy's new version is created without being made live (a staged deploy: the answer has promoted: false, live_version unchanged and the version's version_url); POST /drops/{slug}/rollback makes it live. A first deploy is always live. Anything but true or false: 400 invalid_request.",
      );
    const uploadToken = z
      .string()
      .optional()
      .describe("The upload_token of a POST /deploy/preflight: anonymous deploys by reference need it.");
    const grant = z.object({
      token: z
        .string()
        .regex(DEPLOY_GRANT_TOKEN_PATTERN)
        .describe("The one-time deploy token (from the MCP tool deploy_directory)."),
    });
    return {
      "/deploy/once/{token}": {
        post: {
          operationId: "deployOnce",
          summary: "Deploy through a one-time deploy URL (MCP deploy_directory)",
          description: `The bodies of POST /deploy. The token is the credential: the deploy is made as the caller it was issued to (an account, or anonymous with a claim_token), with the ttl and name given then. It works once, for ${DEPLOY_GRANT_SECONDS / 60} minutes, and only while the API key that asked for it is live (401 auth_required once it is revoked): a second or late use answers 410 gone; a deploy refused for its input leaves it usable. Counts as a deploy for the rate limits (${rate.deploy.max} per ${rate.deploy.windowSeconds} seconds per client address).`,
          security: [{}],
          requestParams: { path: grant, header: z.object({ "X-Upload-Token": uploadToken }) },
          requestBody: deployBody,
          responses: { 200: jsonResponse(S.deployResponseSchema) },
          errors: [
            "invalid_request",
            "invalid_ttl",
            "invalid_zip",
            "file_cap_exceeded",
            "auth_required",
            "subscription_required",
            "not_found",
            "gone",
            "payload_too_large",
            "rate_limited",
            "upstream_unavailable",
          ],
        },
      },
      "/deploy/once/{token}/preflight": {
        post: {
          operationId: "preflightDeployOnce",
          summary: "A preflight as the caller of a one-time deploy URL",
          description:
            "As POST /deploy/preflight, with the contents going to the grant's caller (its account's scope); the one-time URL stays unused.",
          security: [{}],
          requestParams: { path: grant },
          requestBody: jsonRequest(S.preflightBodySchema),
          responses: { 200: jsonResponse(S.preflightResponseSchema) },
          errors: [
            "invalid_request",
            "file_cap_exceeded",
            "auth_required",
            "not_found",
            "gone",
            "payload_too_large",
            "rate_limited",
            "upstream_unavailable",
          ],
        },
      },
      "/deploy": {
        post: {
          operationId: "deploy",
          summary: "Create a drop from HTML, a FilesBody or a zip",
          description: `Anonymous deploys need no credential and get a claim_token. Per-request file cap: ${free.filesPerRequest} (anonymous, free), ${pro.filesPerRequest} (paid). Zip: ${mb(free.zipBytes)} free, ${mb(pro.zipBytes)} paid, unpacked at most ${free.decompressionRatio}x. HTML and JSON bodies: ${mb(free.bodyBytes)}. A drop's files total at most ${mb(free.dropBytes)} (anonymous, free), ${mb(pro.dropBytes)} (paid), however they arrive (413). ${rate.deploy.max} deploys per ${rate.deploy.windowSeconds} seconds per client address.`,
          security: optionalCredential,
          requestParams: {
            query: z.object({ ttl, name, promote, alias, render: renderQuery }),
            header: z.object({
              "X-Upload-Token": uploadToken,
              "If-Match": S.ifMatchHeaderSchema.optional(),
              "Idempotency-Key": S.idempotencyKeyHeaderSchema.optional(),
            }),
          },
          requestBody: deployBody,
          responses: { 200: jsonResponse(S.deployResponseSchema) },
          errors: [
            "invalid_request",
            "invalid_ttl",
            "invalid_name",
            "invalid_zip",
            "file_cap_exceeded",
            "auth_required",
            "subscription_required",
            "conflict",
            "payload_too_large",
            "rate_limited",
            "upstream_unavailable",
          ],
        },
      },
      "/deploy/{slug}": {
        post: {
          operationId: "appendToDrop",
          summary: "Append files to a drop you own (subscribers)",
          description: `Same body forms as POST /deploy. At most ${pro.filesPerDrop} files and ${mb(pro.dropBytes)} per drop in total (413 past either).`,
          security: anyCredential,
          requestParams: {
            path: slugPath,
            query: z.object({ promote, alias, render: renderQuery }),
            header: z.object({
              "If-Match": S.ifMatchHeaderSchema.optional(),
              "Idempotency-Key": S.idempotencyKeyHeaderSchema.optional(),
            }),
          },
          requestBody: deployBody,
          responses: { 200: jsonResponse(S.appendResponseSchema) },
          errors: [
            "invalid_request",
            "invalid_zip",
            "file_cap_exceeded",
            "auth_required",
            "subscription_required",
            "not_found",
            "conflict",
            "payload_too_large",
            "rate_limited",
            "upstream_unavailable",
          ],
        },
      },
      "/deploy/preflight": {
        post: {
          operationId: "preflightDeploy",
          summary: "Name a deploy's files by SHA-256 and size; learn which contents to upload, and where",
          description: `Checks paths and caps exactly as a deploy. Answers the hashes this caller has no stored bytes for, each with a PUT target. Dedup is per account and never crosses accounts; an anonymous caller's targets and uploads belong to this preflight (send upload_token as X-Upload-Token on the deploy) and expire after ${UPLOAD_GRANT_SECONDS / 60} minutes unless a deploy uses them. Send each target's method, url and headers as they are: where bytes live in Vercel Blob or an S3 bucket, contents over ${mb(APP_UPLOAD_MAX_BYTES)} get a target straight to the store (a Blob client token, or a presigned S3 PUT with the size and SHA-256 signed, for that one content), checked by the service before a deploy may use it. Then deploy with {"sha256", "size"} values in the FilesBody. A zip archive goes the same way: preflight {"zip": {"sha256", "size"}} (the plan's zip limit applies: ${mb(free.zipBytes)} free, ${mb(pro.zipBytes)} paid, the limit itself passes), PUT it to its target, then deploy {"zip": {"sha256", "size"}}, unpacked under a posted zip's rules; so no request body to a function exceeds ${mb(APP_UPLOAD_MAX_BYTES)}. A hash names one size (two sizes, or a size other than stored bytes of that hash, answer 400). Anonymous preflights count at the deploy rate per address (${rate.preflight.max} a minute), an account's at ${rate.preflightAccount.max} a minute; one caller holds at most ${mb(free.heldBytes)} (anonymous, free) or ${mb(pro.heldBytes)} (paid) of uploads no drop uses (413 past it).`,
          security: optionalCredential,
          requestBody: jsonRequest(S.preflightBodySchema),
          responses: { 200: jsonResponse(S.preflightResponseSchema) },
          errors: [
            "invalid_request",
            "file_cap_exceeded",
            "auth_required",
            "payload_too_large",
            "rate_limited",
            "upstream_unavailable",
          ],
        },
      },
      "/deploy/uploads/{token}/{sha256}": {
        put: {
          operationId: "uploadContent",
          summary: "Upload the raw bytes of one content named by a preflight",
          description:
            "The body is streamed into storage while its size and SHA-256 are checked; a mismatch answers 400 and stores nothing. The token in the URL is the grant: no other credential is needed. On Vercel, bodies over 4 MB do not reach a function (see docs/uploads.md).",
          security: [{}],
          requestParams: {
            path: z.object({
              token: z.string().describe("The preflight's upload token."),
              sha256: z.string().regex(SHA256_HEX_PATTERN).describe("The content's SHA-256."),
            }),
          },
          requestBody: {
            required: true,
            content: {
              "application/octet-stream": { schema: z.string().meta({ contentMediaType: "application/octet-stream" }) },
            },
          },
          responses: { 201: jsonResponse(S.uploadResponseSchema) },
          errors: ["invalid_request", "not_found", "payload_too_large", "rate_limited", "upstream_unavailable"],
        },
      },
    };
  },
} satisfies Resource;
