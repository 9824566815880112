import type { z } from "zod";
import { createDocument, type ZodOpenApiPathsObject } from "zod-openapi";
import type { Env } from "../env";
import { ratePolicies } from "../ratelimit/policy";
import { billing } from "./billing";
import { claim } from "./claim";
import { deploy } from "./deploy";
import { device } from "./device";
import { domains } from "./domains";
import { drops } from "./drops";
import { readback } from "./readback";
import { render } from "./render";
import { errorComponents, errorSchemas, operationErrors } from "./errors";
import { keys } from "./keys";
import { limitsResource } from "./limits";
import { mcp } from "./mcp";
import type { DocContext, Operation, Resource } from "./operation";
import type { ErrorCode } from "../errors";
import { operations } from "./operations";
import { operators } from "./operators";
import { reports } from "./reports";
import { review } from "./review";
import { sharing } from "./sharing";
import { stats } from "./stats";
import { teams } from "./teams";
import { vanity } from "./vanity";
import { webhooks } from "./webhooks";
import { MCP_SCOPE, OAUTH_ROUTES } from "../oauth/paths";

// The OpenAPI 3.1 document of the service (GET /openapi.json). Each resource module beside this
// file declares its operations with the zod schemas of lib/schemas that validate requests and
// type responses, and the error codes each operation answers; zod-openapi renders them, so the
// document cannot drift from the code.

type Json = Record<string, unknown>;

const OPENAPI_VERSION = "1.0.0";

const resources: Resource[] = [
  deploy,
  drops,
  review,
  readback,
  stats,
  sharing,
  render,
  claim,
  keys,
  webhooks,
  limitsResource,
  device,
  billing,
  vanity,
  domains,
  teams,
  mcp,
  operations,
  reports,
  operators,
];

const tagDescriptions: Record<string, string> = {
  deploy: "Create drops and add files to them.",
  drops: "An account's drops, and claiming anonymous ones.",
  review: "Review links and comments pinned on a drop's previews, for people and agents.",
  keys: "API keys (sp_…) of an account.",
  webhooks: "Signed notifications of an account's changes (Standard Webhooks).",
  account: "What the caller may do, and signing agents in without a key.",
  billing: "Plans and payment.",
  vanity: "Vanity subdomains (Team plan).",
  domains: "Custom domains verified by DNS (Team plan).",
  teams: "Teams: accounts people share, with roles, invitations and an audit log (Team plan).",
  mcp: "The Model Context Protocol endpoint for agents.",
  operations: "For operators: health, the cleanup job, this document.",
  reports: "Reporting abuse of a drop (no credential needed).",
  operators:
    "Trust and safety for the service's operators: the review queue, disabling drops, suspending accounts, address blocks, the audit log.",
};

/** zod states the safe-integer range as the bounds of every integer; those are no limits of the API. */
function dropSafeIntegerBounds({ jsonSchema }: { jsonSchema: Json }): void {
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
}

/**
 * An operation an API key may call can answer 403 forbidden to a team key whose role does not
 * reach it, or to a team key on a person's own route (lib/teams/gates.ts).
 */
function withTeamRefusal(errors: ErrorCode[], security: Operation["security"]): ErrorCode[] {
  const keyed = security.some((s) => "apiKey" in s);
  return keyed && !errors.includes("forbidden") ? [...errors, "forbidden"] : errors;
}

function paths(ctx: DocContext, base: string): ZodOpenApiPathsObject {
  const out: ZodOpenApiPathsObject = {};
  for (const resource of resources) {
    for (const [path, methods] of Object.entries(resource.paths(ctx))) {
      if (out[path]) throw new Error(`${path} is declared by two resources`);
      out[path] = Object.fromEntries(
        Object.entries(methods).map(([method, { errors, responses, ...op }]) => [
          method,
          {
            ...op,
            tags: [resource.tag],
            responses: { ...responses, ...operationErrors(withTeamRefusal(errors, op.security), base) },
          },
        ]),
      );
    }
  }
  return out;
}

/** Builds the document for a deployment: its public base URL, and limits from lib/plans.ts and the rate-limit table. */
export function buildOpenApi(e: Pick<Env, "BASE_URL" | "RATE_LIMIT_DEPLOYS_PER_MINUTE">): Json {
  const base = e.BASE_URL;
  const ctx: DocContext = { rate: ratePolicies(e) };
  const doc = createDocument(
    {
      openapi: "3.1.0",
      jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
      info: {
        title: "dropsite",
        version: OPENAPI_VERSION,
        summary: "Static-content hosting: send HTML, a JSON map of files or a zip, get back a URL.",
        description: `Every error body is the envelope {error, code, hint?, upgrade_url?, docs_url?}; clients parse code. Human docs: ${base}/docs`,
      },
      servers: [{ url: base }],
      externalDocs: { url: `${base}/docs` },
      tags: [...new Set(resources.map((r) => r.tag))].map((name) => ({ name, description: tagDescriptions[name] })),
      paths: paths(ctx, base),
      components: {
        schemas: Object.assign({}, ...resources.map((r) => r.schemas ?? {}), errorSchemas) as Record<string, z.ZodType>,
        responses: errorComponents(base),
        securitySchemes: {
          apiKey: {
            type: "http",
            scheme: "bearer",
            bearerFormat: "sp_ API key",
            description: "An API key: sp_ followed by 43 base64url characters. Account-wide; mint it with an ID token.",
          },
          idToken: {
            type: "http",
            scheme: "bearer",
            bearerFormat: "JWT",
            description:
              "An identity-provider ID token (RS256; issuer and audience checked; at most one hour old). The only credential that can mint keys.",
          },
          reviewLink: {
            type: "http",
            scheme: "bearer",
            bearerFormat: "rl_ review link token",
            description:
              "A review link's token (rl_ followed by 43 base64url characters, from POST /drops/{slug}/review-links): reads and writes comments on that one drop only; another drop answers 404, every account route 401.",
          },
          mcpOAuth: {
            type: "oauth2",
            description:
              "OAuth 2.1 for /mcp only (hosted agent platforms): dynamic registration, authorization code with PKCE S256, refresh tokens. Access tokens are bound to the account that approved and to the resource BASE_URL/mcp: the REST API refuses them (401 auth_required, as any unknown credential).",
            flows: {
              authorizationCode: {
                authorizationUrl: `${base}${OAUTH_ROUTES.authorization}`,
                tokenUrl: `${base}${OAUTH_ROUTES.token}`,
                refreshUrl: `${base}${OAUTH_ROUTES.token}`,
                scopes: { [MCP_SCOPE]: "Use the MCP tools as the account." },
              },
            },
          },
          cronSecret: {
            type: "http",
            scheme: "bearer",
            description: "The CRON_SECRET of the deployment (Vercel Cron sends it).",
          },
        },
      },
    },
    { override: dropSafeIntegerBounds },
  );
  return doc as unknown as Json;
}

let cached: { key: string; doc: Json } | undefined;

/** The document for a deployment's configuration, built once per process. */
export function openApiDocument(e: Pick<Env, "BASE_URL" | "RATE_LIMIT_DEPLOYS_PER_MINUTE">): Json {
  const key = `${e.BASE_URL} ${e.RATE_LIMIT_DEPLOYS_PER_MINUTE}`;
  if (cached?.key !== key) cached = { key, doc: buildOpenApi(e) };
  return cached.doc;
}
