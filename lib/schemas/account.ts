import { z } from "zod";
import { API_KEY_PATTERN, KEY_ID_PATTERN, OAUTH_KEY_ID_PATTERN, SHA256_HEX_PATTERN } from "../patterns";
import { INPUT_LIMITS, isPlainText, utf8Bytes } from "../input";
import { isoDate, planSchema } from "./common";

// --- Account routes: claiming, keys (and OAuth clients), limits ---

export const claimBodySchema = z.object({
  slug: z.string().min(1).max(100).describe("The drop's slug (20 lowercase base32 characters)."),
  claim_token: z.string().min(1).max(200).describe("The claim_token of the anonymous deploy response."),
});

export const claimResponseSchema = z.object({
  slug: z.string(),
  url: z.url(),
  expires_at: isoDate.nullable(),
  plan: planSchema,
});

export const mintKeyBodySchema = z.object({
  note: z
    .string()
    .refine(
      (v) => isPlainText(v) && utf8Bytes(v) <= INPUT_LIMITS.noteBytes,
      `at most ${INPUT_LIMITS.noteBytes} bytes of text without control characters`,
    )
    .default("")
    .describe(`Free text to tell keys apart (at most ${INPUT_LIMITS.noteBytes} bytes, no control characters).`),
  team: z
    .string()
    .max(100)
    .optional()
    .describe(
      "A team's slug: mint a team key, which acts for the team with your role in it (read again at every use). Any member may mint one.",
    ),
});

export const mintKeyResponseSchema = z.object({
  accountId: z.string(),
  apiKey: z.string().regex(API_KEY_PATTERN).describe("Shown once; only its hash is stored."),
  keyId: z.string().regex(SHA256_HEX_PATTERN).describe("SHA-256 of apiKey; use it in DELETE /keys/{id}."),
  note: z.string(),
  team: z.string().optional().describe("The team's slug, for a team key."),
});

export const apiKeyInfoSchema = z.object({
  keyId: z.string().regex(SHA256_HEX_PATTERN),
  kind: z.literal("api_key"),
  prefix: z.string().describe("First 10 characters of the key."),
  note: z.string(),
  createdAt: isoDate,
  lastUsedAt: isoDate.nullable(),
});

/** A client connected through OAuth (an MCP connector), listed beside the API keys. */
export const oauthClientInfoSchema = z.object({
  keyId: z
    .string()
    .regex(OAUTH_KEY_ID_PATTERN)
    .describe("oauth_ and the client id; DELETE /keys/{id} revokes the client's grants and tokens."),
  kind: z.literal("oauth"),
  client_name: z.string().describe("The name the client registered."),
  client_uri: z.string().nullable(),
  createdAt: isoDate.describe("When this account first authorised the client."),
});

export const keysListSchema = z.object({
  keys: z.array(z.discriminatedUnion("kind", [apiKeyInfoSchema, oauthClientInfoSchema])),
});

/** RFC 9728 metadata of the MCP endpoint as an OAuth protected resource. */
export const protectedResourceMetadataSchema = z.object({
  resource: z
    .string()
    .describe("BASE_URL/mcp: the URL an OAuth client (a connector) adds, and the audience of its tokens."),
  authorization_servers: z
    .array(z.string())
    .describe(
      "[BASE_URL]: this app is the authorization server; its RFC 8414 metadata is at /.well-known/oauth-authorization-server.",
    ),
  scopes_supported: z.array(z.string()),
  resource_name: z.string().optional(),
  resource_documentation: z.string().optional(),
});

export const revokeKeyResponseSchema = z.object({ revoked: z.string().regex(KEY_ID_PATTERN) });

export const limitsResponseSchema = z.object({
  plan: z.enum(["anonymous", "free", "pro", "team"]).describe("anonymous without a credential."),
  paid: z.boolean(),
  limits: z.object({
    files_per_request: z.int(),
    files_per_drop: z.int(),
    zip_bytes: z.int(),
    body_bytes: z.int(),
    file_bytes: z.int(),
    drop_bytes: z
      .int()
      .describe(
        "Total bytes of one drop's files, however they arrive (bodies, zips, references, appends); 413 past it.",
      ),
    held_bytes: z
      .int()
      .describe(
        "Bytes of preflighted or uploaded contents that no drop uses yet, that one caller may hold; 413 past it.",
      ),
    decompression_ratio: z.number(),
    redirect_rules: z.int().describe("Rules in a drop's _redirects; 400 past it."),
    header_rules: z.int().describe("Path blocks in a drop's _headers; 400 past it."),
    rule_line_chars: z.int().describe("Characters in one line of _redirects or _headers; 400 past it."),
    header_lines_per_rule: z.int().describe("Header lines in one path block of _headers; 400 past it."),
    added_header_bytes: z
      .int()
      .describe(
        "Bytes _headers may add to one response (Name: value and CRLF, of every rule that can match one path); 400 past it.",
      ),
    ttl_min_seconds: z.int(),
    ttl_max_seconds: z.int().nullable().describe("null: no maximum."),
    ttl_default_seconds: z.int().nullable().describe("null: no expiry unless ttl is given."),
    max_drops: z.int().nullable().describe("null: not limited."),
    max_keys: z.int(),
    max_webhooks: z.int().describe("Webhooks per account (0 without an account)."),
    named_drops: z.boolean(),
    append: z.boolean(),
    vanity: z.boolean(),
    max_domains: z.int().describe("Custom domains the account may hold (0: not on this plan)."),
    max_members: z.int().describe("Seats of a team on this plan, owners counted (0: no teams on this plan)."),
    deploys_per_minute: z.int(),
    versions_kept: z.int().describe("Versions of a drop kept for rollback, the live one included."),
    aliases_per_drop: z
      .int()
      .describe("Aliases a drop may have (PUT /drops/{slug}/aliases/{name}); 0: none (anonymous drops)."),
    stats_retention_days: z
      .int()
      .describe("Days of counts GET /drops/{slug}/stats reads back, today included (0: no account to read them)."),
    render_checks_per_hour: z
      .int()
      .describe("Render checks (?render=1, POST /drops/{slug}/render) the caller may start an hour; 429 past it."),
  }),
});
export type LimitsResponse = z.infer<typeof limitsResponseSchema>;
