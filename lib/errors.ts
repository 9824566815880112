import { env } from "./env";
import { noteErrorCode } from "./log/codes";

// One error model: a typed error carrying a machine-stable code, one table from code to HTTP
// status, and one renderer of the envelope {error, code, hint?, upgrade_url?, docs_url?} and
// the optional structured details of a few errors (ErrorDetails).

export const errorStatus = {
  invalid_request: 400,
  invalid_ttl: 400,
  invalid_name: 400,
  invalid_zip: 400,
  file_cap_exceeded: 400,
  // Device authorisation polls (RFC 8628 §3.5): the state of the request, as the RFC names it.
  authorization_pending: 400,
  slow_down: 400,
  expired_token: 400,
  access_denied: 403,
  // The caller is known but may not do this: a role, a suspended account, a disabled drop.
  forbidden: 403,
  auth_required: 401,
  subscription_required: 402,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  // The deploy scan refused the content (details.findings names what it found).
  content_refused: 422,
  rate_limited: 429,
  internal_error: 500,
  upstream_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;
export const errorCodes = Object.keys(errorStatus) as ErrorCode[];

/**
 * The limits an error can be about: the names GET /limits reports them under (`limits.<name>`),
 * so a program reads the value there and in `allowed` alike; `max_aliases` (the name the design
 * gives the alias cap's refusal) is reported as `limits.aliases_per_drop`.
 */
export const limitNames = [
  "files_per_request",
  "files_per_drop",
  "zip_bytes",
  "body_bytes",
  "file_bytes",
  "decompression_ratio",
  "ttl_min_seconds",
  "ttl_max_seconds",
  "max_drops",
  "max_keys",
  "max_webhooks",
  "max_domains",
  "max_members",
  "max_aliases",
  "max_open_comments",
  "stats_retention_days",
] as const;
export type LimitName = (typeof limitNames)[number];

/**
 * Structured fields that some errors add to the envelope, each optional and named for its use,
 * so a program (and the MCP hints) need not parse the message: the facts an error carries.
 */
export interface ErrorDetails {
  /** Deploys by reference: the content hashes that cannot be used. */
  unusable?: string[];
  /** Which limit was reached (a key of GET /limits' `limits`). */
  limit?: LimitName;
  /** That limit's value for the caller (bytes, files or seconds, as GET /limits states it). */
  allowed?: number;
  /** The caller's plan, when the limit depends on it. */
  plan?: "anonymous" | "free" | "pro" | "team";
  /** The input that failed validation, as a dotted path ("files.index.html", "ttl"). */
  field?: string;
  /** A stale If-Match (409 conflict): the drop's live version now. */
  live_version?: number;
  /** A refused rules file (`_redirects`, `_headers`): every bad line, in line order (bounded). */
  errors?: { file: string; line: number; reason: string }[];
  /** 422 content_refused: what the deploy scan found, each with its rule and place. */
  findings?: ScanFindingDetail[];
}

/** One finding of the deploy scan as an error or a report names it (excerpt ≤ 120 characters). */
export interface ScanFindingDetail {
  rule: string;
  file: string;
  line: number;
  excerpt: string;
}

/** What ApiError.fromZod reads of a failed zod parse (the first issue decides). */
export interface ValidationFailure {
  issues: readonly { message: string; path: readonly PropertyKey[] }[];
}

export interface ErrorEnvelope extends ErrorDetails {
  error: string;
  code: ErrorCode;
  hint?: string;
  upgrade_url?: string;
  docs_url?: string;
  /** The request's X-Request-Id, the id of its line in the request log. */
  request_id?: string;
}

export interface ApiErrorOptions {
  hint?: string;
  /** Set when a plan upgrade lifts the failure; rendered as an absolute URL. */
  upgrade?: boolean;
  /** Anchor in the docs page, rendered as docs_url. */
  docs?: string;
  /** Extra response headers, e.g. Retry-After or Allow. */
  headers?: Record<string, string>;
  /** Extra fields of the envelope. */
  details?: ErrorDetails;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly upgrade: boolean;
  readonly docs?: string;
  readonly headers: Record<string, string>;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ApiError";
    this.code = code;
    this.hint = options.hint;
    this.upgrade = options.upgrade ?? false;
    this.docs = options.docs;
    this.headers = options.headers ?? {};
    this.details = options.details ?? {};
  }

  /**
   * The one translation of a failed zod parse into an API error: `<subject> is invalid at
   * "<path>": <zod's message>.`, the path also in details.field. The code is invalid_request
   * unless given (or chosen from the field, e.g. invalid_ttl for "ttl").
   */
  static fromZod(
    failure: ValidationFailure,
    subject: string,
    options: ApiErrorOptions & {
      code?: ErrorCode | ((field: string) => ErrorCode | undefined);
      under?: readonly PropertyKey[];
    } = {},
  ): ApiError {
    const issue = failure.issues[0];
    const { code, details, under = [], ...rest } = options;
    const field = issue ? [...under, ...issue.path].map(String).join(".") : "";
    const chosen = (typeof code === "function" ? code(field) : code) ?? "invalid_request";
    const where = field ? ` at ${JSON.stringify(field)}` : "";
    return new ApiError(chosen, `${subject} is invalid${where}: ${issue?.message ?? "invalid"}.`, {
      ...rest,
      details: { ...details, ...(field ? { field } : {}) },
    });
  }

  get status(): number {
    return errorStatus[this.code];
  }

  envelope(): ErrorEnvelope {
    const base = env().BASE_URL;
    const body: ErrorEnvelope = { error: this.message, code: this.code };
    if (this.hint) body.hint = this.hint;
    if (this.upgrade) body.upgrade_url = `${base}/#pricing`;
    if (this.docs) body.docs_url = `${base}/docs#${this.docs}`;
    return { ...body, ...this.details };
  }
}

/** A dependency (database, storage, rate-limit store) failed or timed out. */
export function upstreamUnavailable(what: string, cause: unknown): ApiError {
  return new ApiError("upstream_unavailable", `The ${what} is unavailable right now.`, {
    hint: "This is temporary on our side; retry in a few seconds. Nothing was changed.",
    headers: { "Retry-After": "5" },
    cause,
  });
}

export function authRequired(): ApiError {
  return new ApiError("auth_required", "A valid credential is required.", {
    hint: "Send Authorization: Bearer <sp_ API key or ID token>. Mint a key from the dashboard after logging in.",
    docs: "authentication",
  });
}

export function notFound(what = "Not found."): ApiError {
  return new ApiError("not_found", what);
}

export function methodNotAllowed(allowed: readonly string[]): ApiError {
  return new ApiError("method_not_allowed", `Method not allowed. Allowed: ${allowed.join(", ")}.`, {
    headers: { Allow: allowed.join(", ") },
  });
}

/** One line naming an error and its causes, for logs: "Error: a ← DatabaseError: b (57P01)". */
export function describeCause(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, i = 0; e !== undefined && e !== null && i < 5; e = (e as { cause?: unknown }).cause, i++) {
    if (e instanceof Error) {
      const code = (e as { code?: unknown }).code;
      parts.push(
        `${e.name}: ${e.message.split("\n")[0]}${typeof code === "string" || typeof code === "number" ? ` (${code})` : ""}`,
      );
    } else {
      parts.push((typeof e === "string" ? e : (JSON.stringify(e) ?? typeof e)).split("\n")[0] ?? "");
      break;
    }
  }
  return parts.join(" ← ");
}

/**
 * Turns anything thrown into an ApiError. Every 5xx is logged with its cause on one line (an
 * ApiError for an unavailable dependency) or with its stack (anything unexpected), then hidden.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) {
    if (err.status >= 500)
      console.error(
        `[${err.code}] ${err.message} cause: ${err.cause === undefined ? "none recorded" : describeCause(err.cause)}`,
      );
    return err;
  }
  console.error("[internal_error]", err);
  return new ApiError("internal_error", "Something went wrong on our side.", {
    hint: "Retry the request; if it keeps failing, report it with the time of the request.",
  });
}

/** The one renderer of the error envelope; with the request, the envelope carries its `request_id`. */
export function errorResponse(err: unknown, req?: Request): Response {
  const e = toApiError(err);
  const body = e.envelope();
  const id = req?.headers.get("x-request-id");
  if (id) {
    body.request_id = id;
    noteErrorCode(id, e.code);
  }
  return Response.json(body, {
    status: e.status,
    headers: { "Cache-Control": "no-store", ...e.headers },
  });
}
