import { z } from "zod";
import { limitNames } from "./errors";

// Request and response schemas, named per resource, in one place: they validate requests and
// type the code, and the MCP tool schemas and the OpenAPI document are generated from them.

import {
  API_KEY_PATTERN,
  KEY_ID_PATTERN,
  NAME_PATTERN,
  OAUTH_KEY_ID_PATTERN,
  SHA256_HEX_PATTERN,
  VANITY_PATTERN,
  WEBHOOK_EVENT_TYPES,
} from "./patterns";
import { INPUT_LIMITS, isPlainText, utf8Bytes } from "./input";
import {
  ACCESS_PASSWORD_MAX_CHARS,
  ACCESS_PASSWORD_MIN_CHARS,
  DEVICE_CLAIMS_MAX,
  DOMAIN_TXT_GRACE_SECONDS,
  RULE_REFUSALS_LISTED,
  TTL_CEILING_SECONDS,
} from "./plans";
import { REDIRECT_STATUSES } from "./rules/types";

export { NAME_PATTERN, VANITY_PATTERN };
export const planSchema = z.enum(["free", "pro", "team"]);

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
  .describe("Named drop alias (subscribers): ^[a-z0-9][a-z0-9-]{0,40}$.");

const isoDate = z.iso.datetime({ offset: true });

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

// The render object (DESIGN "Render check"): GET and POST /drops/{slug}/render answer it bare,
// deploys asked with ?render=1 (and the MCP deploy tools with render_check) carry it as `render`,
// where it can also say why no check ran.

export const renderResultSchema = z.object({
  status: z
    .enum(["ok", "problems", "failed"])
    .describe(
      "problems: any console error, page error, failed request or a blank page; failed: the page did not load.",
    ),
  url: z.url().describe("The URL opened (the drop's live version)."),
  http_status: z.int().nullable().describe("The main document's status; null when none came (network error, timeout)."),
  title: z.string(),
  load_ms: z.int().nullable().describe("Milliseconds to the load event at the desktop size; null when it never came."),
  console_errors: z.array(z.object({ text: z.string(), location: z.string() })),
  page_errors: z.array(z.string()).describe("Uncaught exceptions."),
  failed_requests: z.array(
    z.union([z.object({ url: z.string(), status: z.int() }), z.object({ url: z.string(), error: z.string() })]),
  ),
  blank: z.boolean().describe("Nothing visible: no text, image, media, form control or background image."),
  screenshots: z
    .object({ desktop: z.url().nullable(), phone: z.url().nullable() })
    .describe(
      "Viewport PNGs (1280×800 and 390×844), public at unguessable URLs until a newer check or the drop's deletion.",
    ),
});
export type RenderResult = z.infer<typeof renderResultSchema>;

export const renderUnavailableSchema = z.object({
  status: z.literal("unavailable"),
  reason: z
    .enum(["no_browser", "rate_limited", "browser_error"])
    .describe("no_browser: the server has none set up; rate_limited: the caller's render checks per hour are spent."),
  retry_after: z.int().optional().describe("rate_limited: seconds until a check is allowed again."),
  hint: z.string(),
});
export type RenderUnavailable = z.infer<typeof renderUnavailableSchema>;

/** `render` in a deploy answer. */
export const deployRenderSchema = z
  .union([renderResultSchema, renderUnavailableSchema])
  .describe("With ?render=1 (MCP: render_check): the page as a real browser saw it, or why no check ran.");
export type DeployRender = z.infer<typeof deployRenderSchema>;
/** What a render check found: the render object less its screenshot URLs (stored per drop). */
export type RenderFindings = Omit<RenderResult, "screenshots">;

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
  version: z.int().min(1).describe("The drop's live version after this deploy (1 for a new drop)."),
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
  version: z.int().min(1).describe("The new live version: the previous live version's files plus these."),
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
  disabled: z
    .object({ reason: z.string(), at: isoDate })
    .nullable()
    .describe(
      "Set while an operator has disabled the drop: it answers 451 everywhere and refuses writes (403 forbidden); its owner may still delete it or appeal at /report.",
    ),
});
export type Drop = z.infer<typeof dropSchema>;

export const accessModeSchema = z
  .enum(["public", "password"])
  .describe("public: anyone with the URL; password: visitors who know the drop's password.");

/** Code points of the NFC form: what "characters" means for a password. */
export const passwordChars = (s: string) => [...s.normalize("NFC")].length;

export const accessPasswordSchema = z
  .string()
  .refine(
    (s) => passwordChars(s) >= ACCESS_PASSWORD_MIN_CHARS && passwordChars(s) <= ACCESS_PASSWORD_MAX_CHARS,
    `must be ${ACCESS_PASSWORD_MIN_CHARS} to ${ACCESS_PASSWORD_MAX_CHARS} characters`,
  )
  .meta({ minLength: ACCESS_PASSWORD_MIN_CHARS, maxLength: ACCESS_PASSWORD_MAX_CHARS })
  .describe(
    `The drop's password, ${ACCESS_PASSWORD_MIN_CHARS} to ${ACCESS_PASSWORD_MAX_CHARS} characters. Stored only as a slow salted hash; never returned.`,
  );

export const accessBodySchema = z.discriminatedUnion("mode", [
  z.strictObject({ mode: z.literal("public") }),
  z.strictObject({ mode: z.literal("password"), password: accessPasswordSchema }),
]);

export const accessResponseSchema = z.object({ slug: z.string(), mode: accessModeSchema });
export type AccessResponse = z.infer<typeof accessResponseSchema>;

export const siteRulesSchema = z
  .object({
    redirects: z.array(
      z.object({
        line: z.int().min(1).describe("Line of _redirects."),
        from: z.string(),
        to: z.string(),
        status: z.union(REDIRECT_STATUSES.map((n) => z.literal(n))),
        force: z.boolean().describe("Written with !: applies even when a file answers the path."),
      }),
    ),
    headers: z.array(
      z.object({
        line: z.int().min(1).describe("Line of the path in _headers."),
        path: z.string(),
        headers: z.array(z.object({ name: z.string(), value: z.string() })),
      }),
    ),
  })
  .describe("The site rules the drop serves with, parsed from its _redirects and _headers at deploy, in file order.");

export const dropDetailSchema = dropSchema.extend({
  access: accessModeSchema.describe(
    "Who may see the drop's files: public, or password (visitors unlock it with its password).",
  ),
  plan: planSchema.describe("The owning account's plan."),
  total_bytes: z.int().min(0),
  files: z
    .array(z.object({ path: z.string(), size: z.int().min(0), content_type: z.string() }))
    .describe("By path; at most 1000."),
  files_truncated: z.boolean().describe("true when the drop has more files than listed (see file_count)."),
  redirect_rules: z.int().min(0).describe("Rules of the drop's _redirects (0 without one)."),
  header_rules: z.int().min(0).describe("Path blocks of the drop's _headers (0 without one)."),
  rules: siteRulesSchema,
  live_version: z.int().min(1).describe("The version served; files, file_count and total_bytes are that version's."),
});
export type DropDetail = z.infer<typeof dropDetailSchema>;

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

// --- Account routes: drops, claiming, keys, limits, cleanup ---

/** The largest offset a list accepts (PostgreSQL's int4 maximum; no account holds that many drops). */
export const MAX_OFFSET = 2_147_483_647;
/** The largest page of a list, and the page size when none is asked for. */
export const LIST_LIMIT_MAX = 500;
export const LIST_LIMIT_DEFAULT = 100;

export const listQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(LIST_LIMIT_MAX)
    .default(LIST_LIMIT_DEFAULT)
    .describe(`Page size, 1 to ${LIST_LIMIT_MAX}.`),
  offset: z.coerce.number().int().min(0).max(MAX_OFFSET).default(0).describe(`Drops to skip, 0 to ${MAX_OFFSET}.`),
});

/** The dashboard's ?page= (pages of `pageSize` drops): a page whose offset a list accepts; anything else is page 1. */
export const dashboardPageSchema = (pageSize: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(Math.floor(MAX_OFFSET / pageSize))
    .catch(1);

export const listDropsResponseSchema = z.object({
  total: z.int().describe("All drops of the account, not only this page."),
  drops: z
    .array(
      dropSchema.extend({
        views_7d: z
          .int()
          .describe("Views of the drop today and the 6 days before (UTC), as GET /drops/{slug}/stats counts them."),
      }),
    )
    .describe("Newest first."),
});
export type ListDropsResponse = z.infer<typeof listDropsResponseSchema>;

// --- Counts (GET /drops/{slug}/stats) ---

const statsDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .describe("A UTC day, YYYY-MM-DD.");

export const statsQuerySchema = z.object({
  from: statsDay
    .optional()
    .describe("First UTC day, YYYY-MM-DD; default 6 days before `to`. Not before the plan's retention."),
  to: statsDay.optional().describe("Last UTC day, YYYY-MM-DD; default today."),
});

const statsTotals = {
  views: z.int().describe("GET answers of text/html with 200 or 304 to people (not bots or link previews)."),
  visitors: z
    .int()
    .describe(
      "Distinct visitors (per-day salted hash of address and user agent, never stored past its day); summed over days.",
    ),
  requests: z.int().describe("Every other request of people: assets, HEAD, redirects, errors."),
  bytes: z.int().describe("Body bytes sent for views and requests."),
  not_found: z.int().describe("Requests answered 404."),
};

const countedKey = <K extends string>(key: K, what: string) =>
  z
    .array(z.object({ [key]: z.string(), views: z.int() } as { [P in K]: z.ZodString } & { views: z.ZodInt }))
    .describe(what);

export const dropStatsSchema = z.object({
  slug: z.string(),
  from: z.string().describe("First day of the range (UTC)."),
  to: z.string().describe("Last day of the range (UTC)."),
  totals: z.object({
    ...statsTotals,
    bot_requests: z.int().describe("Requests from user agents the isbot package names; they count in no other figure."),
    previews: z
      .int()
      .describe(
        "Requests from link unfurlers (Slack, Discord, X, Facebook, LinkedIn, iMessage, Teams …); they count in no other figure.",
      ),
  }),
  days: z
    .array(z.object({ date: z.string(), ...statsTotals }))
    .describe("Every day of the range, oldest first; a day with nothing has zeros."),
  paths: countedKey("path", "The 20 most viewed paths (without query)."),
  referrers: countedKey("host", "The 20 referrer hosts with most views, lower-case; the drop's own hosts left out."),
  countries: countedKey(
    "code",
    "Views by ISO 3166 alpha-2 country code from a trusted proxy header (TRUST_PROXY), or unknown.",
  ),
});
export type DropStats = z.infer<typeof dropStatsSchema>;

export const deleteDropResponseSchema = z.object({ deleted: z.string().describe("Slug of the deleted drop.") });

export const ifMatchHeaderSchema = z
  .string()
  .regex(/^\s*"[1-9][0-9]{0,9}"\s*$/)
  .describe(
    'The live version the write expects, in double quotes (e.g. "3"); when another version is live: 409 conflict with live_version. Named deploys and appends only.',
  );

export const idempotencyKeyHeaderSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x20-\x7e]+$/)
  .describe(
    "1 to 255 printable characters. The same request with the same key from the same caller within 24 hours replays the first answer (Idempotent-Replayed: true); another request with it, or a retry while the first runs, is 409 conflict.",
  );

export const versionKinds = ["deploy", "replace", "append"] as const;

export const dropVersionSchema = z.object({
  version: z.int().min(1),
  created_at: isoDate,
  file_count: z.int().min(0),
  total_bytes: z.int().min(0),
  kind: z
    .enum(versionKinds)
    .describe("The write that made the version: the first deploy, a named replace, or an append."),
  live: z.boolean().describe("true for the version the drop serves."),
});

export const versionsListSchema = z.object({
  total: z.int().describe("Retained versions of the drop, not only this page."),
  live_version: z.int().min(1),
  versions: z.array(dropVersionSchema).describe("Newest first."),
});
export type VersionsList = z.infer<typeof versionsListSchema>;

export const rollbackBodySchema = z.object({
  version: z.int().describe("A retained version of the drop (older or newer than the live one)."),
});

export const rollbackResponseSchema = z.object({
  slug: z.string(),
  url: z.url(),
  live_version: z.int().min(1),
});
export type RollbackResponse = z.infer<typeof rollbackResponseSchema>;

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
});

export const mintKeyResponseSchema = z.object({
  accountId: z.string(),
  apiKey: z.string().regex(API_KEY_PATTERN).describe("Shown once; only its hash is stored."),
  keyId: z.string().regex(SHA256_HEX_PATTERN).describe("SHA-256 of apiKey; use it in DELETE /keys/{id}."),
  note: z.string(),
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
    deploys_per_minute: z.int(),
    versions_kept: z.int().describe("Versions of a drop kept for rollback, the live one included."),
    stats_retention_days: z
      .int()
      .describe("Days of counts GET /drops/{slug}/stats reads back, today included (0: no account to read them)."),
    render_checks_per_hour: z
      .int()
      .describe("Render checks (?render=1, POST /drops/{slug}/render) the caller may start an hour; 429 past it."),
  }),
});
export type LimitsResponse = z.infer<typeof limitsResponseSchema>;

// --- Webhooks ---

export const webhookEventSchema = z.enum(WEBHOOK_EVENT_TYPES);

export const webhookBodySchema = z.object({
  url: z
    .string()
    .max(2048)
    .describe(
      "Where events are POSTed: https, resolving to public addresses only (unless the server sets WEBHOOKS_ALLOW_PRIVATE=1).",
    ),
  events: z
    .array(webhookEventSchema)
    .min(1)
    .max(WEBHOOK_EVENT_TYPES.length * 2)
    .optional()
    .describe(`The event types to receive; omitted means all ${WEBHOOK_EVENT_TYPES.length}.`),
});

export const webhookInfoSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(webhookEventSchema),
});

export const webhookCreatedSchema = webhookInfoSchema.extend({
  secret: z
    .string()
    .describe("whsec_…: the signing secret of the Standard Webhooks scheme, shown only in this answer."),
});

export const webhooksListSchema = z.object({ webhooks: z.array(webhookInfoSchema) });

export const webhookDeletedSchema = z.object({ deleted: z.string() });

export const webhookDeliveriesSchema = z.object({
  deliveries: z.array(
    z.object({
      event_id: z.string().describe("The event's id: the webhook-id header, the same on every retry."),
      type: webhookEventSchema,
      status_code: z.int().nullable().describe("The receiver's HTTP status; null when it gave none."),
      error: z
        .string()
        .nullable()
        .describe("Why the attempt failed (refused address, timeout, network, a non-2xx status); null on success."),
      attempt: z.int().describe("1 for the first attempt."),
      created_at: z.string().describe("When the attempt was made (RFC 3339)."),
    }),
  ),
});

export const deliveryPassSchema = z.object({
  attempted: z.int().describe("Delivery attempts made by this pass."),
  delivered: z.int().describe("Of those, the ones a receiver accepted (2xx)."),
});

/** The body POSTed to a webhook. */
export const webhookPayloadSchema = z.object({
  id: z.string(),
  type: webhookEventSchema,
  created_at: z.string(),
  data: z
    .object({ slug: z.string().optional(), url: z.string().optional(), version: z.int().optional() })
    .catchall(z.unknown()),
});

export const cleanupResponseSchema = z.object({
  purged: z.int(),
  slugs: z.array(z.string()),
  versions_pruned: z.int().describe("Versions removed beyond each plan's versionsKept."),
  domains_pending: z
    .array(z.string())
    .describe(
      `Custom domains sent back to pending: their TXT record was gone for ${DOMAIN_TXT_GRACE_SECONDS / 86_400} days.`,
    ),
});

// --- Device authorisation (RFC 8628) ---

export const deviceAuthorizeBodySchema = z.object({
  claims: z
    .array(claimBodySchema)
    .max(DEVICE_CLAIMS_MAX)
    .optional()
    .describe(
      `Anonymous drops this agent deployed, by slug and claim_token (at most ${DEVICE_CLAIMS_MAX}): the approval page shows them, and approving moves them into the approving account with the rules of POST /claim; each one's outcome is reported, none fails the approval.`,
    ),
});

const deviceClaimOutcomeSchema = z.object({
  slug: z.string(),
  claimed: z.boolean(),
  url: z.url().optional().describe("When claimed."),
  code: z
    .string()
    .optional()
    .describe("When not claimed: the error code POST /claim would answer (not_found, gone, subscription_required, …)."),
  error: z.string().optional(),
});

export const deviceTokenBodySchema = z.object({
  device_code: z.string().min(1).max(200).describe("The device_code of POST /device/authorize."),
});

export const deviceAuthorizationSchema = z.object({
  device_code: z.string().describe("Secret: keep it for device_token; never show it to the user."),
  user_code: z.string().describe("Short code the user checks on the verification page."),
  verification_uri: z.url(),
  verification_uri_complete: z
    .url()
    .describe("The verification page with the code filled in: give this link to the user."),
  expires_in: z.int().min(1).describe("Seconds until the request expires."),
  interval: z.int().min(1).describe("Seconds to wait between device_token calls."),
});

export const deviceTokenSchema = z.object({
  access_token: z.string().describe("The new sp_ API key (same as api_key)."),
  token_type: z.literal("Bearer"),
  api_key: z.string().regex(API_KEY_PATTERN).describe("Shown once; send it as Authorization: Bearer."),
  key_id: z.string().regex(SHA256_HEX_PATTERN),
  account_id: z.string(),
  plan: z.enum(["free", "pro", "team"]),
  claims: z
    .array(deviceClaimOutcomeSchema)
    .describe("The anonymous drops asked for in the authorisation, and whether each moved into the account."),
});

// --- Billing and vanity subdomains ---

export const checkoutBodySchema = z.object({
  plan: z.enum(["pro", "team"]).default("pro").describe("The plan to subscribe to."),
});

export const checkoutResponseSchema = z.object({
  url: z
    .url()
    .describe("Where to send the user: the payment provider's checkout page, or the portal when already subscribed."),
  alreadySubscribed: z.boolean(),
});

export const portalResponseSchema = z.object({ url: z.url() });

export const entitlementsSchema = z.object({
  accountId: z.string(),
  plan: planSchema,
  activeSubscription: z.boolean(),
  currentPeriodEnd: isoDate.nullable().optional(),
  cancelAt: isoDate.nullable().optional(),
  portalAvailable: z.boolean().optional(),
});

export const webhookResponseSchema = z
  .looseObject({})
  .describe("Acknowledgement of a verified payment-provider event.");

export const vanityBodySchema = z.object({
  sub: z
    .string()
    .regex(VANITY_PATTERN)
    .regex(/^(?!.*--)/, "no double hyphens")
    .describe("3 to 20 lowercase letters, digits and single hyphens; not starting or ending with a hyphen."),
});

export const vanityResponseSchema = z.object({ sub: z.string().nullable() });

export const vanityClaimResponseSchema = z.object({
  sub: z.string(),
  serve_base: z.string().describe("Shape https://<sub>--<name>.<serve_domain>/"),
});

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

// --- MCP (stateless JSON-RPC 2.0) ---

export const jsonRpcRequestSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.int()]).optional().describe("Absent for notifications."),
  method: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
});

export const jsonRpcResponseSchema = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.int()]).nullable(),
  result: z.unknown().optional(),
  error: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }).optional(),
});

// Types of the billing and vanity schemas above

export type CheckoutResponse = z.infer<typeof checkoutResponseSchema>;
export type PortalResponse = z.infer<typeof portalResponseSchema>;
export type Entitlements = z.infer<typeof entitlementsSchema>;
export type VanityResponse = z.infer<typeof vanityResponseSchema>;
export type VanityClaimResponse = z.infer<typeof vanityClaimResponseSchema>;

// Results of the MCP tools reuse the REST response schemas: deploy_html and deploy_files →
// deployResponseSchema, list_drops → listDropsResponseSchema, delete_drop →
// deleteDropResponseSchema, get_limits → limitsResponseSchema.

export const healthResponseSchema = z.object({
  status: z.enum(["ok", "degraded"]).describe("ok when every part answers; degraded (503) otherwise."),
  version: z.string().describe("The server's version."),
  database: z.enum(["ok", "unavailable"]),
  storage: z.enum(["ok", "unavailable"]),
});
export type HealthResponse = z.infer<typeof healthResponseSchema>;
