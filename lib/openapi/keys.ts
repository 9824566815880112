import { z } from "zod";
import { limits } from "../plans";
import * as S from "../schemas";
import { anyCredential, jsonRequest, jsonResponse, type Resource } from "./operation";

// API keys: POST /keys (ID token only), GET /keys, DELETE /keys/{id}.

export const keys = {
  tag: "keys",
  schemas: {
    MintKeyBody: S.mintKeyBodySchema,
    MintedKey: S.mintKeyResponseSchema,
    KeyList: S.keysListSchema,
    RevokedKey: S.revokeKeyResponseSchema,
  },
  paths: ({ rate }) => ({
    "/keys": {
      post: {
        operationId: "mintKey",
        summary: "Mint an API key (ID token only)",
        description: `The apiKey is shown once. At most ${limits.free.maxKeys} live keys per account; ${rate.keyMint.max} mints per ${rate.keyMint.windowSeconds} seconds. With team (a slug of a team you are in; else 404), a team key: it acts for the team with your role there, read again at every use.`,
        security: [{ idToken: [] }],
        requestBody: jsonRequest(S.mintKeyBodySchema, false),
        responses: { 201: jsonResponse(S.mintKeyResponseSchema) },
        errors: [
          "invalid_request",
          "auth_required",
          "not_found",
          "payload_too_large",
          "rate_limited",
          "upstream_unavailable",
        ],
      },
      get: {
        operationId: "listKeys",
        summary: "List your live API keys",
        security: anyCredential,
        responses: { 200: jsonResponse(S.keysListSchema) },
        errors: ["auth_required", "rate_limited", "upstream_unavailable"],
      },
    },
    "/keys/{id}": {
      delete: {
        operationId: "revokeKey",
        summary: "Revoke an API key, instantly",
        security: anyCredential,
        requestParams: {
          path: z.object({ id: S.apiKeyInfoSchema.shape.keyId.describe("The 64-hex key id (SHA-256 of the key).") }),
        },
        responses: { 200: jsonResponse(S.revokeKeyResponseSchema) },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
  }),
} satisfies Resource;
