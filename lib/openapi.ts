import { z } from "zod";
import { errorStatus, type ErrorCode } from "./errors";
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
  Health: S.healthResponseSchema,
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
} satisfies Record<string, z.ZodType>;

type SchemaName = keyof typeof responseSchemas | keyof typeof requestSchemas;

const ref = (name: SchemaName): Json => ({ $ref: `#/components/schemas/${name}` });

/** JSON Schema 2020-12 without the top-level `$schema`/`$id`, as OpenAPI embeds it. */
function clean(schema: Json): Json {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

function toSchema(schema: z.ZodType, io: "input" | "output" = "output"): Json {
  return clean(z.toJSONSchema(schema, { io, unrepresentable: "any" }));
}

function componentSchemas(schemas: Record<string, z.ZodType>, io: "input" | "output"): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const { schemas: out } = z.toJSONSchema(registry, { io, unrepresentable: "any", uri: (id) => `#/components/schemas/${id}` }) as { schemas: Record<string, Json> };
  return Object.fromEntries(Object.entries(out).map(([id, s]) => [id, clean(s)]));
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
  404: "Not found (or owned by another account)",
  405: "Method not allowed",
  409: "Conflict",
  410: "Gone",
  413: "Payload too large",
  429: "Rate limited",
  500: "Internal error",
  503: "A dependency is unavailable",
};

function errorResponses(): Record<string, Json> {
  const retryAfter = { "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 0 } } };
  return Object.fromEntries(
    errorStatuses.map((status) => {
      const codes = codesForStatus(status);
      const headers = status === 429 || status === 503 ? retryAfter : status === 405 ? { Allow: { description: "Methods this path answers.", schema: { type: "string" } } } : undefined;
      return [
        `Error${status}`,
        {
          description: `${statusText[status] ?? "Error"}: code ${codes.join(", ")}. Body is the error envelope.`,
          ...(headers ? { headers } : {}),
          content: { "application/json": { schema: { allOf: [ref("ErrorEnvelope"), { properties: { code: { enum: codes } } }] } } },
        },
      ];
    }),
  );
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
  errors: number[];
}

function operation(op: Op): Json {
  const responses: Json = {};
  for (const [status, body] of Object.entries(op.ok)) {
    responses[status] = typeof body === "string" ? { description: "Success.", content: { "application/json": { schema: ref(body) } } } : body;
  }
  for (const status of [...new Set([...op.errors, 500])].sort((a, b) => a - b)) {
    responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  }
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
      "text/html": { schema: { type: "string" } },
      "application/json": { schema: ref("FilesBody") },
      "application/zip": { schema: { type: "string", contentMediaType: "application/zip" } },
    },
  };
}

/** Builds the document for a deployment's public base URL. */
export function buildOpenApi(baseUrl: string): Json {
  const listShape = S.listQuerySchema.shape;
  const slugParam = { name: "slug", in: "path", required: true, schema: { type: "string" }, description: "The drop's slug." };
  const keyIdParam = { name: "id", in: "path", required: true, schema: toSchema(S.apiKeyInfoSchema.shape.keyId), description: "The 64-hex key id (SHA-256 of the key)." };
  const ttlParam = { name: "ttl", in: "query", required: false, schema: toSchema(S.ttlSchema), description: "Lifetime in seconds, minimum 60. Anonymous: at most 2592000 (30 days, the default). Free accounts: at most 604800 (the default). Subscribers: any value; default no expiry." };
  const nameParam = { name: "name", in: "query", required: false, schema: toSchema(S.nameSchema), description: "Named drop (subscribers): redeploying the same name replaces the content and keeps the URL. Without a credential: 401." };

  const paths: Record<string, Record<string, Json>> = {
    "/deploy": {
      post: operation({
        operationId: "deploy",
        tag: "drops",
        summary: "Create a drop from HTML, a FilesBody or a zip",
        description: "Anonymous deploys need no credential and get a claim_token. Per-request file cap: 100 (anonymous, free), 900 (paid). Zip: 25 MB free, 100 MB paid, unpacked at most 4x. HTML and JSON bodies: 10 MB. 10 deploys per minute per IP.",
        security: optionalCredential,
        parameters: [ttlParam, nameParam],
        requestBody: deployBody(),
        ok: { 200: "DeployResponse" },
        errors: [400, 401, 402, 413, 429, 503],
      }),
    },
    "/deploy/{slug}": {
      post: operation({
        operationId: "appendToDrop",
        tag: "drops",
        summary: "Append files to a drop you own (subscribers)",
        description: "Same body forms as POST /deploy. At most 10,000 files per drop in total (413 past it).",
        security: anyCredential,
        parameters: [slugParam],
        requestBody: deployBody(),
        ok: { 200: "AppendResponse" },
        errors: [400, 401, 402, 404, 413, 429, 503],
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
        errors: [400, 401, 429, 503],
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
        errors: [401, 404, 429, 503],
      }),
    },
    "/claim": {
      post: operation({
        operationId: "claimDrop",
        tag: "drops",
        summary: "Claim an anonymous drop with its claim_token",
        description: "One-time. Wrong or used token, or unknown slug: 404. Past the claim window: 410. 10 claims per minute per IP.",
        security: anyCredential,
        requestBody: jsonBody("ClaimBody"),
        ok: { 200: "ClaimResponse" },
        errors: [400, 401, 404, 410, 429, 503],
      }),
    },
    "/keys": {
      post: operation({
        operationId: "mintKey",
        tag: "keys",
        summary: "Mint an API key (ID token only)",
        description: "The apiKey is shown once. At most 25 live keys per account; 5 mints per minute.",
        security: [{ idToken: [] }],
        requestBody: jsonBody("MintKeyBody", false),
        ok: { 201: "MintedKey" },
        errors: [400, 401, 429, 503],
      }),
      get: operation({
        operationId: "listKeys",
        tag: "keys",
        summary: "List your live API keys",
        security: anyCredential,
        ok: { 200: "KeyList" },
        errors: [401, 429, 503],
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
        errors: [401, 404, 429, 503],
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
        errors: [401, 503],
      }),
    },
    "/billing/me": {
      get: operation({
        operationId: "getEntitlements",
        tag: "billing",
        summary: "Plan and subscription state of the account",
        security: anyCredential,
        ok: { 200: "Entitlements" },
        errors: [401, 429, 503],
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
        errors: [400, 401, 429, 503],
      }),
    },
    "/billing/portal": {
      post: operation({
        operationId: "createPortal",
        tag: "billing",
        summary: "Open the payment provider's customer portal",
        security: anyCredential,
        ok: { 200: "PortalSession" },
        errors: [400, 401, 404, 429, 503],
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
        errors: [503],
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
        errors: [400, 401, 503],
      }),
    },
    "/vanity": {
      get: operation({
        operationId: "getVanity",
        tag: "vanity",
        summary: "The account's vanity subdomain, or null",
        security: anyCredential,
        ok: { 200: "Vanity" },
        errors: [401, 429, 503],
      }),
      post: operation({
        operationId: "claimVanity",
        tag: "vanity",
        summary: "Claim a vanity subdomain (Team plan)",
        description: "One per account, first come first served. Named drops then serve at https://<sub>--<name>.<serve_domain>/.",
        security: anyCredential,
        requestBody: jsonBody("VanityBody"),
        ok: { 201: "VanityClaim" },
        errors: [400, 401, 402, 409, 429, 503],
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
        errors: [405, 429],
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
        errors: [401, 404, 503],
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
      responses: errorResponses(),
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", bearerFormat: "sp_ API key", description: "An API key: sp_ followed by 43 base64url characters. Account-wide; mint it with an ID token." },
        idToken: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "An identity-provider ID token (RS256; issuer and audience checked; at most one hour old). The only credential that can mint keys." },
        cronSecret: { type: "http", scheme: "bearer", description: "The CRON_SECRET of the deployment (Vercel Cron sends it)." },
      },
    },
  };
}

let cached: { baseUrl: string; doc: Json } | undefined;

/** The document for a base URL, built once per process. */
export function openApiDocument(baseUrl: string): Json {
  if (cached?.baseUrl !== baseUrl) cached = { baseUrl, doc: buildOpenApi(baseUrl) };
  return cached.doc;
}
