import { z } from "zod";
import { TTL_CEILING_SECONDS } from "./deploy/ttl";
import type { Env } from "./env";
import { errorStatus, type ErrorCode } from "./errors";
import { DEPLOY_GRANT_SECONDS, limits, UPLOAD_GRANT_SECONDS } from "./plans";
import { describeRate, ratePolicies } from "./ratelimit/policy";
import { SHA256_HEX_PATTERN } from "./patterns";
import * as S from "./schemas";

// The OpenAPI 3.1 document of the service (GET /openapi.json). Every body schema is generated
// from the zod schemas in lib/schemas.ts that validate requests and type responses, so the
// document cannot drift from the code; only the routing facts (paths, statuses, auth) are here.

type Json = Record<string, unknown>;

export const OPENAPI_VERSION = "1.0.0";

/** Response bodies (generated in zod's output mode: what the service sends). */
const responseSchemas = {
  DeployResponse: S.deployResponseSchema,
  AppendResponse: S.appendResponseSchema,
  Drop: S.dropSchema,
  DropList: S.listDropsResponseSchema,
  DeletedDrop: S.deleteDropResponseSchema,
  ClaimResponse: S.claimResponseSchema,
  MintedKey: S.mintKeyResponseSchema,
  ApiKeyInfo: S.apiKeyInfoSchema,
  KeyList: S.keysListSchema,
  RevokedKey: S.revokeKeyResponseSchema,
  Limits: S.limitsResponseSchema,
  Entitlements: S.entitlementsSchema,
  CheckoutSession: S.checkoutResponseSchema,
  PortalSession: S.portalResponseSchema,
  WebhookAck: S.webhookResponseSchema,
  Vanity: S.vanityResponseSchema,
  VanityClaim: S.vanityClaimResponseSchema,
  JsonRpcResponse: S.jsonRpcResponseSchema,
  CleanupResult: S.cleanupResponseSchema,
  DeviceAuthorization: S.deviceAuthorizationSchema,
  DeviceToken: S.deviceTokenSchema,
  Health: S.healthResponseSchema,
  PreflightResponse: S.preflightResponseSchema,
  UploadResponse: S.uploadResponseSchema,
  ErrorEnvelope: S.errorEnvelopeSchema,
} satisfies Record<string, z.ZodType>;

/** Request bodies (zod's input mode: what a client may send, defaults optional). */
const requestSchemas = {
  FilesBody: S.filesBodySchema,
  ClaimBody: S.claimBodySchema,
  MintKeyBody: S.mintKeyBodySchema,
  CheckoutBody: S.checkoutBodySchema,
  VanityBody: S.vanityBodySchema,
  JsonRpcRequest: S.jsonRpcRequestSchema,
  DeviceTokenBody: S.deviceTokenBodySchema,
  PreflightBody: S.preflightBodySchema,
  DeviceAuthorizeBody: S.deviceAuthorizeBodySchema,
} satisfies Record<string, z.ZodType>;

type SchemaName = keyof typeof responseSchemas | keyof typeof requestSchemas;

const ref = (name: SchemaName): Json => ({ $ref: `#/components/schemas/${name}` });

/** JSON Schema 2020-12 without the top-level `$schema`/`$id`, as OpenAPI embeds it. */
function clean(schema: Json): Json {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

/**
 * zod writes the safe-integer range as the bounds of every integer; those are not limits of the
 * API, so they are dropped (an integer without a stated bound has none but its type's).
 */
function realBounds<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(realBounds) as T;
  if (!schema || typeof schema !== "object") return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries(schema)) {
    if ((k === "maximum" && v === Number.MAX_SAFE_INTEGER) || (k === "minimum" && v === Number.MIN_SAFE_INTEGER)) continue;
    out[k] = realBounds(v);
  }
  return out as T;
}

function toSchema(schema: z.ZodType, io: "input" | "output" = "output"): Json {
  return realBounds(clean(z.toJSONSchema(schema, { io, unrepresentable: "any" })));
}

function componentSchemas(schemas: Record<string, z.ZodType>, io: "input" | "output"): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const { schemas: out } = z.toJSONSchema(registry, { io, unrepresentable: "any", uri: (id) => `#/components/schemas/${id}` }) as { schemas: Record<string, Json> };
  return Object.fromEntries(Object.entries(out).map(([id, s]) => [id, realBounds(clean(s))]));
}

/** Error codes answered with a status, from the one table in lib/errors.ts. */
export function codesForStatus(status: number): ErrorCode[] {
  return (Object.entries(errorStatus) as [ErrorCode, number][]).filter(([, s]) => s === status).map(([c]) => c);
}

const errorStatuses = [...new Set(Object.values(errorStatus))].sort((a, b) => a - b);

const statusText: Record<number, string> = {
  400: "Bad request",
  401: "Missing or invalid credential",
  402: "A paid plan is required",
  403: "Access denied",
  404: "Not found (or owned by another account)",
  405: "Method not allowed",
  409: "Conflict",
  410: "Gone",
  413: "Payload too large",
  429: "Rate limited",
  500: "Internal error",
  503: "A dependency is unavailable",
};

/** An example envelope of each code, as the service writes them (`docs_url`/`upgrade_url` on `base`). */
function errorExample(code: ErrorCode, base: string): Json {
  const f = limits.free;
  const examples: Record<ErrorCode, Json> = {
    invalid_request: { error: "Path \"../etc/passwd\" leaves the drop.", hint: "Use relative paths such as index.html or assets/app.js.", docs: "paths" },
    invalid_ttl: { error: `ttl must be at least ${f.ttlMinSeconds} seconds.`, docs: "ttl" },
    invalid_name: { error: "name must match ^[a-z0-9][a-z0-9-]{0,40}$.", docs: "named-drops" },
    invalid_zip: { error: "The body is not a zip archive.", docs: "zip" },
    file_cap_exceeded: { error: `${f.filesPerRequest + 1} files in one request; this plan allows ${f.filesPerRequest}.`, hint: `Paid plans allow ${limits.pro.filesPerRequest} files per request.`, upgrade: true, docs: "limits" },
    auth_required: { error: "This route needs a credential: Authorization: Bearer <sp_ key or ID token>.", hint: "Mint an API key on the dashboard.", docs: "authentication" },
    subscription_required: { error: "Named drops are for subscribers.", hint: "Upgrade to pro or team.", upgrade: true, docs: "plans" },
    not_found: { error: "No such drop in this account." },
    method_not_allowed: { error: "GET is not allowed here." },
    conflict: { error: "That vanity subdomain is taken." },
    gone: { error: "The claim window of this drop has passed." },
    payload_too_large: { error: `The zip is larger than ${f.zipBytes} bytes, this plan's cap.`, upgrade: true, docs: "limits" },
    rate_limited: { error: "Too many deploys from this address; try again later.", docs: "limits" },
    internal_error: { error: "Something went wrong on our side." },
    upstream_unavailable: { error: "Billing is not configured on this server.", hint: "Ask the operator, or set a plan with npm run admin." },
    authorization_pending: { error: "The person has not approved this device yet.", hint: "Poll again after interval seconds.", docs: "device-authorization" },
    slow_down: { error: "Polled faster than the interval.", hint: "Add 5 seconds to the interval and poll again.", docs: "device-authorization" },
    expired_token: { error: "This device code has expired or was already used.", hint: "Start again with POST /device/authorize.", docs: "device-authorization" },
    access_denied: { error: "The person denied this device.", docs: "device-authorization" },
  };
  const { docs, upgrade, ...rest } = examples[code];
  return {
    ...rest,
    code,
    ...(upgrade ? { upgrade_url: `${base}/#pricing` } : {}),
    ...(typeof docs === "string" ? { docs_url: `${base}/docs#${docs}` } : {}),
  };
}

/** The error response of one status, listing only the codes given (the operation's own). */
function errorResponse(status: number, codes: ErrorCode[], base: string): Json {
  const retryAfter = { "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 0 } } };
  const headers = status === 429 || status === 503 ? retryAfter : status === 405 ? { Allow: { description: "Methods this path answers.", schema: { type: "string" } } } : undefined;
  return {
    description: `${statusText[status] ?? "Error"}: code ${codes.join(", ")}. Body is the error envelope.`,
    ...(headers ? { headers } : {}),
    content: {
      "application/json": {
        schema: { allOf: [ref("ErrorEnvelope"), { properties: { code: { enum: codes } } }] },
        examples: Object.fromEntries(codes.map((c) => [c, { summary: c, value: errorExample(c, base) }])),
      },
    },
  };
}

/** Every status with all its codes: components a client may reuse. */
function errorResponses(base: string): Record<string, Json> {
  return Object.fromEntries(errorStatuses.map((status) => [`Error${status}`, errorResponse(status, codesForStatus(status), base)]));
}

const anyCredential = [{ apiKey: [] }, { idToken: [] }];
const optionalCredential = [{}, ...anyCredential];

interface Op {
  summary: string;
  description?: string;
  tag: string;
  operationId: string;
  security: Json[];
  parameters?: Json[];
  requestBody?: Json;
  /** Success status → schema name, or a full response object. */
  ok: Record<number, SchemaName | Json>;
  /** The error codes this operation answers (internal_error is added to every one). */
  errors: ErrorCode[];
}

function buildOperation(op: Op, base: string): Json {
  const responses: Json = {};
  for (const [status, body] of Object.entries(op.ok)) {
    responses[status] = typeof body === "string" ? { description: "Success.", content: { "application/json": { schema: ref(body) } } } : body;
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set<ErrorCode>([...op.errors, "internal_error"])) byStatus.set(errorStatus[code], [...(byStatus.get(errorStatus[code]) ?? []), code]);
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) responses[String(status)] = errorResponse(status, codes, base);
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    security: op.security,
    ...(op.parameters ? { parameters: op.parameters } : {}),
    ...(op.requestBody ? { requestBody: op.requestBody } : {}),
    responses,
  };
}

const jsonBody = (name: SchemaName, required = true): Json => ({ required, content: { "application/json": { schema: ref(name) } } });

function deployBody(): Json {
  return {
    required: true,
    description: "The body form is chosen by Content-Type. Any type that is neither JSON nor zip is stored as index.html.",
    content: {
      "text/html": { schema: { type: "string" }, example: "<!doctype html><h1>Hello</h1>" },
      "application/json": {
        schema: ref("FilesBody"),
        examples: {
          text: { summary: "Text files", value: { files: { "index.html": "<h1>Hello</h1>", "assets/app.js": "console.log('hi')" } } },
          binary: { summary: "A binary file, base64", value: { files: { "index.html": "<img src=dot.png>", "dot.png": { encoding: "base64", content: "iVBORw0KGgo=" } } } },
          reference: {
            summary: "A file by reference to content uploaded after POST /deploy/preflight",
            value: { files: { "index.html": "<script src=app.js></script>", "app.js": { sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", size: 4 } } },
          },
        },
      },
      "application/zip": {
        schema: {
          type: "string",
          contentMediaType: "application/zip",
          description: "The bytes of a zip archive (e.g. curl --data-binary @site.zip); a single top-level folder is stripped.",
        },
      },
    },
  };
}

const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/** Builds the document for a deployment: its public base URL, and limits from lib/plans.ts and the rate-limit table. */
export function buildOpenApi(e: Pick<Env, "BASE_URL" | "RATE_LIMIT_DEPLOYS_PER_MINUTE">): Json {
  const baseUrl = e.BASE_URL;
  const operation = (op: Op) => buildOperation(op, baseUrl);
  const rate = ratePolicies(e);
  const { anonymous: anon, free, pro } = limits;
  const listShape = S.listQuerySchema.shape;
  const slugParam = { name: "slug", in: "path", required: true, schema: { type: "string" }, description: "The drop's slug." };
  const keyIdParam = { name: "id", in: "path", required: true, schema: toSchema(S.apiKeyInfoSchema.shape.keyId), description: "The 64-hex key id (SHA-256 of the key)." };
  const ttlParam = { name: "ttl", in: "query", required: false, schema: { ...toSchema(S.ttlSchema), maximum: TTL_CEILING_SECONDS },
    description: `Lifetime in seconds, at least ${free.ttlMinSeconds}. Anonymous: at most ${anon.ttlMaxSeconds ?? TTL_CEILING_SECONDS} (the default). Free accounts: at most ${free.ttlMaxSeconds ?? TTL_CEILING_SECONDS} (the default). Subscribers: up to ${TTL_CEILING_SECONDS} (100 years); default no expiry.` };
  const uploadTokenParam = { name: "X-Upload-Token", in: "header", required: false, schema: { type: "string" }, description: "The upload_token of a POST /deploy/preflight: anonymous deploys by reference need it." };
  const grantParam = { name: "token", in: "path", required: true, schema: { type: "string", pattern: "^dg_[A-Za-z0-9_-]{43}$" }, description: "The one-time deploy token (from the MCP tool deploy_directory)." };
  const nameParam = { name: "name", in: "query", required: false, schema: toSchema(S.nameSchema), description: "Named drop (subscribers): redeploying the same name replaces the content and keeps the URL. Without a credential: 401." };

  const paths: Record<string, Record<string, Json>> = {
    "/deploy/preflight": {
      post: operation({
        operationId: "preflightDeploy",
        tag: "drops",
        summary: "Name a deploy's files by SHA-256 and size; learn which contents to upload, and where",
        description: `Checks paths and caps exactly as a deploy. Answers the hashes this caller has no stored bytes for, each with a PUT target. Dedup is per account and never crosses accounts; an anonymous caller's targets and uploads belong to this preflight (send upload_token as X-Upload-Token on the deploy) and expire after ${UPLOAD_GRANT_SECONDS / 60} minutes unless a deploy uses them. Then deploy with {"sha256", "size"} values in the FilesBody.`,
        security: optionalCredential,
        requestBody: jsonBody("PreflightBody"),
        ok: { 200: "PreflightResponse" },
        errors: ["invalid_request", "file_cap_exceeded", "auth_required", "payload_too_large", "upstream_unavailable"],
      }),
    },
    "/deploy/uploads/{token}/{sha256}": {
      put: operation({
        operationId: "uploadContent",
        tag: "drops",
        summary: "Upload the raw bytes of one content named by a preflight",
        description: "The body is streamed into storage while its size and SHA-256 are checked; a mismatch answers 400 and stores nothing. The token in the URL is the grant: no other credential is needed. On Vercel, bodies over 4 MB do not reach a function (see docs/uploads.md).",
        security: [{}],
        parameters: [
          { name: "token", in: "path", required: true, schema: { type: "string" }, description: "The preflight's upload token." },
          { name: "sha256", in: "path", required: true, schema: { type: "string", pattern: SHA256_HEX_PATTERN.source }, description: "The content's SHA-256." },
        ],
        requestBody: { required: true, content: { "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } } } },
        ok: { 201: "UploadResponse" },
        errors: ["invalid_request", "not_found", "payload_too_large", "upstream_unavailable"],
      }),
    },
    "/deploy/once/{token}": {
      post: operation({
        operationId: "deployOnce",
        tag: "drops",
        summary: "Deploy through a one-time deploy URL (MCP deploy_directory)",
        description: `The bodies of POST /deploy. The token is the credential: the deploy is made as the caller it was issued to (an account, or anonymous with a claim_token), with the ttl and name given then. It works once, for ${DEPLOY_GRANT_SECONDS / 60} minutes: a second or late use answers 410 gone; a deploy refused for its input leaves it usable. Counts as a deploy for the rate limits.`,
        security: [{}],
        parameters: [grantParam, uploadTokenParam],
        requestBody: deployBody(),
        ok: { 200: "DeployResponse" },
        errors: ["invalid_request", "invalid_ttl", "invalid_zip", "file_cap_exceeded", "subscription_required", "not_found", "gone", "payload_too_large", "rate_limited", "upstream_unavailable"],
      }),
    },
    "/deploy/once/{token}/preflight": {
      post: operation({
        operationId: "preflightDeployOnce",
        tag: "drops",
        summary: "A preflight as the caller of a one-time deploy URL",
        description: "As POST /deploy/preflight, with the contents going to the grant's caller (its account's scope); the one-time URL stays unused.",
        security: [{}],
        parameters: [grantParam],
        requestBody: jsonBody("PreflightBody"),
        ok: { 200: "PreflightResponse" },
        errors: ["invalid_request", "file_cap_exceeded", "not_found", "gone", "payload_too_large", "upstream_unavailable"],
      }),
    },
    "/deploy": {
      post: operation({
        operationId: "deploy",
        tag: "drops",
        summary: "Create a drop from HTML, a FilesBody or a zip",
        description: `Anonymous deploys need no credential and get a claim_token. Per-request file cap: ${free.filesPerRequest} (anonymous, free), ${pro.filesPerRequest} (paid). Zip: ${mb(free.zipBytes)} free, ${mb(pro.zipBytes)} paid, unpacked at most ${free.decompressionRatio}x. HTML and JSON bodies: ${mb(free.bodyBytes)}. ${rate.deploy.max} deploys per ${rate.deploy.windowSeconds} seconds per client address.`,
        security: optionalCredential,
        parameters: [ttlParam, nameParam, uploadTokenParam],
        requestBody: deployBody(),
        ok: { 200: "DeployResponse" },
        errors: ["invalid_request", "invalid_ttl", "invalid_name", "invalid_zip", "file_cap_exceeded", "auth_required", "subscription_required", "payload_too_large", "rate_limited", "upstream_unavailable"],
      }),
    },
    "/deploy/{slug}": {
      post: operation({
        operationId: "appendToDrop",
        tag: "drops",
        summary: "Append files to a drop you own (subscribers)",
        description: `Same body forms as POST /deploy. At most ${pro.filesPerDrop} files per drop in total (413 past it).`,
        security: anyCredential,
        parameters: [slugParam],
        requestBody: deployBody(),
        ok: { 200: "AppendResponse" },
        errors: ["invalid_request", "invalid_zip", "file_cap_exceeded", "auth_required", "subscription_required", "not_found", "payload_too_large", "rate_limited", "upstream_unavailable"],
      }),
    },
    "/drops": {
      get: operation({
        operationId: "listDrops",
        tag: "drops",
        summary: "List your drops, newest first",
        security: anyCredential,
        parameters: [
          { name: "limit", in: "query", required: false, schema: toSchema(listShape.limit), description: "Page size, 1 to 500 (default 100)." },
          { name: "offset", in: "query", required: false, schema: toSchema(listShape.offset), description: "Drops to skip, at least 0 (default 0)." },
        ],
        ok: { 200: "DropList" },
        errors: ["invalid_request", "auth_required", "rate_limited", "upstream_unavailable"],
      }),
    },
    "/drops/{slug}": {
      delete: operation({
        operationId: "deleteDrop",
        tag: "drops",
        summary: "Delete a drop and purge its files",
        description: "Edge caches may serve a deleted drop for up to 60 seconds.",
        security: anyCredential,
        parameters: [slugParam],
        ok: { 200: "DeletedDrop" },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      }),
    },
    "/claim": {
      post: operation({
        operationId: "claimDrop",
        tag: "drops",
        summary: "Claim an anonymous drop with its claim_token",
        description: `One-time. Wrong or used token, or unknown slug: 404. Past the claim window: 410. ${rate.claim.max} claims per ${rate.claim.windowSeconds} seconds per client address.`,
        security: anyCredential,
        requestBody: jsonBody("ClaimBody"),
        ok: { 200: "ClaimResponse" },
        errors: ["invalid_request", "auth_required", "not_found", "gone", "payload_too_large", "rate_limited", "upstream_unavailable"],
      }),
    },
    "/keys": {
      post: operation({
        operationId: "mintKey",
        tag: "keys",
        summary: "Mint an API key (ID token only)",
        description: `The apiKey is shown once. At most ${free.maxKeys} live keys per account; ${rate.keyMint.max} mints per ${rate.keyMint.windowSeconds} seconds.`,
        security: [{ idToken: [] }],
        requestBody: jsonBody("MintKeyBody", false),
        ok: { 201: "MintedKey" },
        errors: ["invalid_request", "auth_required", "payload_too_large", "rate_limited", "upstream_unavailable"],
      }),
      get: operation({
        operationId: "listKeys",
        tag: "keys",
        summary: "List your live API keys",
        security: anyCredential,
        ok: { 200: "KeyList" },
        errors: ["auth_required", "rate_limited", "upstream_unavailable"],
      }),
    },
    "/keys/{id}": {
      delete: operation({
        operationId: "revokeKey",
        tag: "keys",
        summary: "Revoke an API key, instantly",
        security: anyCredential,
        parameters: [keyIdParam],
        ok: { 200: "RevokedKey" },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      }),
    },
    "/limits": {
      get: operation({
        operationId: "getLimits",
        tag: "account",
        summary: "The limits that apply to the caller",
        description: "Without a credential, the anonymous limits.",
        security: optionalCredential,
        ok: { 200: "Limits" },
        errors: ["auth_required", "upstream_unavailable"],
      }),
    },
    "/billing/me": {
      get: operation({
        operationId: "getEntitlements",
        tag: "billing",
        summary: "Plan and subscription state of the account",
        security: anyCredential,
        ok: { 200: "Entitlements" },
        errors: ["auth_required", "rate_limited", "upstream_unavailable"],
      }),
    },
    "/billing/checkout": {
      post: operation({
        operationId: "createCheckout",
        tag: "billing",
        summary: "Start a checkout session for a paid plan",
        security: anyCredential,
        requestBody: jsonBody("CheckoutBody", false),
        ok: { 200: "CheckoutSession" },
        errors: ["invalid_request", "auth_required", "payload_too_large", "rate_limited", "upstream_unavailable"],
      }),
    },
    "/billing/portal": {
      post: operation({
        operationId: "createPortal",
        tag: "billing",
        summary: "Open the payment provider's customer portal",
        security: anyCredential,
        ok: { 200: "PortalSession" },
        errors: ["invalid_request", "auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      }),
    },
    "/healthz": {
      get: operation({
        operationId: "getHealth",
        tag: "operations",
        summary: "Database and storage reachable, and the version (for operators and load balancers)",
        description: "200 when both answer; 503 with Retry-After and the same body naming the part that does not. Shows no configuration.",
        security: [],
        ok: { 200: "Health" },
        errors: ["upstream_unavailable"],
      }),
    },
    "/billing/webhook": {
      post: operation({
        operationId: "billingWebhook",
        tag: "billing",
        summary: "Payment-provider events (signed; not for API clients)",
        description: "Verified with the Stripe-Signature header; replayed events are acknowledged once.",
        security: [],
        parameters: [{ name: "Stripe-Signature", in: "header", required: true, schema: { type: "string" } }],
        requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } },
        ok: { 200: "WebhookAck" },
        errors: ["invalid_request", "auth_required", "payload_too_large", "upstream_unavailable"],
      }),
    },
    "/vanity": {
      get: operation({
        operationId: "getVanity",
        tag: "vanity",
        summary: "The account's vanity subdomain, or null",
        security: anyCredential,
        ok: { 200: "Vanity" },
        errors: ["auth_required", "rate_limited", "upstream_unavailable"],
      }),
      post: operation({
        operationId: "claimVanity",
        tag: "vanity",
        summary: "Claim a vanity subdomain (Team plan)",
        description: "One per account, first come first served. Named drops then serve at https://<sub>--<name>.<serve_domain>/.",
        security: anyCredential,
        requestBody: jsonBody("VanityBody"),
        ok: { 201: "VanityClaim" },
        errors: ["invalid_request", "auth_required", "subscription_required", "conflict", "payload_too_large", "rate_limited", "upstream_unavailable"],
      }),
    },
    "/mcp": {
      post: operation({
        operationId: "mcp",
        tag: "mcp",
        summary: "Model Context Protocol (stateless JSON-RPC 2.0)",
        description:
          "Methods: server/discover, initialize (legacy), tools/list, tools/call. Tools: deploy_html, deploy_files, deploy_named, append_files, list_drops, get_drop, delete_drop, get_limits. With a Bearer sp_ key the tools act as that account; without one, deploys are anonymous. Tool failures are results with isError: true whose text carries the error code and hint (and _meta dev.dropsite/error the envelope). A request whose Origin is not allowed answers 403.",
        security: optionalCredential,
        requestBody: jsonBody("JsonRpcRequest"),
        ok: {
          200: "JsonRpcResponse",
          202: { description: "A notification was accepted; no body." },
          400: { description: "Invalid JSON-RPC request, batch, or protocol-version mismatch.", content: { "application/json": { schema: ref("JsonRpcResponse") } } },
          403: { description: "The request's Origin is not allowed (MCP_ALLOWED_ORIGINS).", content: { "application/json": { schema: ref("JsonRpcResponse") } } },
          404: { description: "Unknown method (-32601).", content: { "application/json": { schema: ref("JsonRpcResponse") } } },
          413: { description: "The body is over the cap of one tool call.", content: { "application/json": { schema: ref("JsonRpcResponse") } } },
        },
        errors: ["method_not_allowed", "rate_limited"],
      }),
    },
    "/device/authorize": {
      post: operation({
        operationId: "deviceAuthorize",
        tag: "account",
        summary: "Start a device authorisation (RFC 8628) for an agent without a key",
        description: `Show the person verification_uri_complete; poll POST /device/token every interval seconds. Requests expire after expires_in seconds. ${describeRate(rate.deviceAuthorize)} per IP. An optional JSON body lists anonymous drops to claim in the same approval (their outcomes come with the key).`,
        security: [],
        requestBody: jsonBody("DeviceAuthorizeBody", false),
        ok: { 200: "DeviceAuthorization" },
        errors: ["invalid_request", "rate_limited", "upstream_unavailable"],
      }),
    },
    "/device/token": {
      post: operation({
        operationId: "deviceToken",
        tag: "account",
        summary: "Poll a device authorisation; on approval, a new sp_ key once",
        description: "400 authorization_pending until the person approves on /device, 400 slow_down when polled faster than interval, 400 expired_token after expiry or once the key was issued, 403 access_denied when denied.",
        security: [],
        requestBody: jsonBody("DeviceTokenBody"),
        ok: { 200: "DeviceToken" },
        errors: ["invalid_request", "authorization_pending", "slow_down", "expired_token", "access_denied", "rate_limited", "upstream_unavailable"],
      }),
    },
    "/cron/cleanup": {
      get: operation({
        operationId: "cleanup",
        tag: "operations",
        summary: "Purge expired drops (cron job)",
        description: "Guarded by CRON_SECRET, sent as a Bearer credential. Answers 404 when CRON_SECRET is not configured. Idempotent.",
        security: [{ cronSecret: [] }],
        ok: { 200: "CleanupResult" },
        errors: ["auth_required", "not_found", "upstream_unavailable"],
      }),
    },
    "/openapi.json": {
      get: {
        operationId: "openapi",
        tags: ["operations"],
        summary: "This document",
        security: [],
        responses: { 200: { description: "OpenAPI 3.1 document.", content: { "application/json": { schema: { type: "object" } } } } },
      },
    },
  };

  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    info: {
      title: "dropsite",
      version: OPENAPI_VERSION,
      summary: "Static-content hosting: send HTML, a JSON map of files or a zip, get back a URL.",
      description: `Every error body is the envelope {error, code, hint?, upgrade_url?, docs_url?}; clients parse code. Human docs: ${baseUrl}/docs`,
    },
    servers: [{ url: baseUrl }],
    externalDocs: { url: `${baseUrl}/docs` },
    tags: ["drops", "keys", "account", "billing", "vanity", "mcp", "operations"].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...componentSchemas(responseSchemas, "output"), ...componentSchemas(requestSchemas, "input") },
      responses: errorResponses(baseUrl),
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", bearerFormat: "sp_ API key", description: "An API key: sp_ followed by 43 base64url characters. Account-wide; mint it with an ID token." },
        idToken: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "An identity-provider ID token (RS256; issuer and audience checked; at most one hour old). The only credential that can mint keys." },
        cronSecret: { type: "http", scheme: "bearer", description: "The CRON_SECRET of the deployment (Vercel Cron sends it)." },
      },
    },
  };
}

let cached: { key: string; doc: Json } | undefined;

/** The document for a deployment's configuration, built once per process. */
export function openApiDocument(e: Pick<Env, "BASE_URL" | "RATE_LIMIT_DEPLOYS_PER_MINUTE">): Json {
  const key = `${e.BASE_URL} ${e.RATE_LIMIT_DEPLOYS_PER_MINUTE}`;
  if (cached?.key !== key) cached = { key, doc: buildOpenApi(e) };
  return cached.doc;
}
