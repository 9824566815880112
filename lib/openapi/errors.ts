import { z } from "zod";
import type { ZodOpenApiResponseObject } from "zod-openapi";
import { errorStatus, type ErrorCode } from "../errors";
import { limits } from "../plans";
import { errorEnvelopeSchema } from "../schemas";

// The error responses of the document: the envelope of lib/schemas narrowed to the codes an
// operation answers, with an example envelope for each code. Statuses come from lib/errors.ts.

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
  422: "The deploy scan refused the content",
  429: "Rate limited",
  500: "Internal error",
  503: "A dependency is unavailable",
};

interface ExampleSpec {
  error: string;
  hint?: string;
  /** Rendered as upgrade_url, as ApiError does. */
  upgrade?: true;
  /** Anchor in the docs page, rendered as docs_url. */
  docs?: string;
}

/** One example of each code, as the service words it; numbers from lib/plans.ts. */
function exampleSpecs(): Record<ErrorCode, ExampleSpec> {
  const { free, pro } = limits;
  return {
    invalid_request: {
      error: 'Path "../etc/passwd" leaves the drop.',
      hint: "Use relative paths such as index.html or assets/app.js.",
      docs: "paths",
    },
    invalid_ttl: { error: `ttl must be at least ${free.ttlMinSeconds} seconds.`, docs: "ttl" },
    invalid_name: { error: "name must match ^[a-z0-9][a-z0-9-]{0,40}$.", docs: "named-drops" },
    invalid_zip: { error: "The body is not a zip archive.", docs: "zip" },
    file_cap_exceeded: {
      error: `${free.filesPerRequest + 1} files in one request; this plan allows ${free.filesPerRequest}.`,
      hint: `Paid plans allow ${pro.filesPerRequest} files per request.`,
      upgrade: true,
      docs: "limits",
    },
    auth_required: {
      error: "This route needs a credential: Authorization: Bearer <sp_ key or ID token>.",
      hint: "Mint an API key on the dashboard.",
      docs: "authentication",
    },
    subscription_required: {
      error: "Named drops are for subscribers.",
      hint: "Upgrade to pro or team.",
      upgrade: true,
      docs: "plans",
    },
    not_found: { error: "No such drop in this account." },
    method_not_allowed: { error: "GET is not allowed here." },
    conflict: { error: "That vanity subdomain is taken." },
    gone: { error: "The claim window of this drop has passed." },
    payload_too_large: {
      error: `The zip is larger than ${free.zipBytes} bytes, this plan's cap.`,
      upgrade: true,
      docs: "limits",
    },
    rate_limited: { error: "Too many deploys from this address; try again later.", docs: "limits" },
    internal_error: { error: "Something went wrong on our side." },
    upstream_unavailable: {
      error: "Billing is not configured on this server.",
      hint: "Ask the operator, or set a plan with npm run admin.",
    },
    authorization_pending: {
      error: "The person has not approved this device yet.",
      hint: "Poll again after interval seconds.",
      docs: "device-authorization",
    },
    slow_down: {
      error: "Polled faster than the interval.",
      hint: "Add 5 seconds to the interval and poll again.",
      docs: "device-authorization",
    },
    expired_token: {
      error: "This device code has expired or was already used.",
      hint: "Start again with POST /device/authorize.",
      docs: "device-authorization",
    },
    access_denied: { error: "The person denied this device.", docs: "device-authorization" },
    forbidden: {
      error: "This drop is disabled by the operator.",
      hint: "You can still delete it, or appeal at /report with reason appeal.",
    },
    content_refused: {
      error: "The deploy scan refused this content: a password form posts to another host.",
      hint: "details.findings names each rule, file and line; anonymous deploys with these findings are refused.",
    },
  };
}

/** The envelope as a named component, which every error response refers to. */
export const errorSchemas = { ErrorEnvelope: errorEnvelopeSchema };

function errorExample(code: ErrorCode, spec: ExampleSpec, base: string): z.output<typeof errorEnvelopeSchema> {
  return {
    error: spec.error,
    code,
    ...(spec.hint ? { hint: spec.hint } : {}),
    ...(spec.upgrade ? { upgrade_url: `${base}/#pricing` } : {}),
    ...(spec.docs ? { docs_url: `${base}/docs#${spec.docs}` } : {}),
  };
}

function headersOf(status: number) {
  if (status === 429 || status === 503)
    return z.object({ "Retry-After": z.int().min(0).optional().describe("Seconds to wait before retrying.") });
  if (status === 405) return z.object({ Allow: z.string().optional().describe("Methods this path answers.") });
  return undefined;
}

/** The error response of one status, listing only the codes given (an operation's own). */
function errorResponse(status: number, codes: [ErrorCode, ...ErrorCode[]], base: string): ZodOpenApiResponseObject {
  const specs = exampleSpecs();
  const headers = headersOf(status);
  return {
    description: `${statusText[status] ?? "Error"}: code ${codes.join(", ")}. Body is the error envelope.`,
    ...(headers ? { headers } : {}),
    content: {
      "application/json": {
        schema: z.intersection(errorEnvelopeSchema, z.looseObject({ code: z.enum(codes) })),
        examples: Object.fromEntries(codes.map((c) => [c, { summary: c, value: errorExample(c, specs[c], base) }])),
      },
    },
  };
}

function byStatus(codes: Iterable<ErrorCode>): Map<number, [ErrorCode, ...ErrorCode[]]> {
  const out = new Map<number, [ErrorCode, ...ErrorCode[]]>();
  for (const code of codes) {
    const status = errorStatus[code];
    const list = out.get(status);
    if (list) list.push(code);
    else out.set(status, [code]);
  }
  return new Map([...out].sort(([a], [b]) => a - b));
}

/** An operation's error responses by status; internal_error is added to every operation. */
export function operationErrors(codes: readonly ErrorCode[], base: string): Record<string, ZodOpenApiResponseObject> {
  const all = byStatus(new Set<ErrorCode>([...codes, "internal_error"]));
  return Object.fromEntries([...all].map(([status, list]) => [String(status), errorResponse(status, list, base)]));
}

/** Every status with all its codes (components/responses/Error<status>), for clients to reuse. */
export function errorComponents(base: string): Record<string, ZodOpenApiResponseObject> {
  const all = byStatus(Object.keys(errorStatus) as ErrorCode[]);
  return Object.fromEntries([...all].map(([status, list]) => [`Error${status}`, errorResponse(status, list, base)]));
}
