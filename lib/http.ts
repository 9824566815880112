import { ApiError, errorResponse, methodNotAllowed } from "./errors";
import { inActorScope } from "./log/actor-scope";

// Small composable wrappers for route handlers: every handler's failures leave through the one
// envelope renderer, and methods a route does not implement answer 405 with Allow.

export type Handler<P = Record<string, string>> = (req: Request, params: P) => Promise<Response> | Response;
type NextCtx<P> = { params: Promise<P> };
type NextHandler<P> = (req: Request, ctx: NextCtx<P>) => Promise<Response>;

const ALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
type Method = (typeof ALL_METHODS)[number];

/** Runs a handler and renders any thrown error as the envelope. */
export async function handle<P>(handler: Handler<P>, req: Request, params: P): Promise<Response> {
  return inActorScope(async () => {
    try {
      return await handler(req, params);
    } catch (err) {
      return errorResponse(err, req);
    }
  });
}

/** The handlers of one route by method (HEAD follows GET; OPTIONS and the rest answer 405). */
export type RouteHandlers<P = Record<string, string>> = Partial<
  Record<Exclude<Method, "HEAD" | "OPTIONS">, Handler<P>>
>;

/** The method exports routes() made to answer 405: a route's own handlers are not among them. */
const refusals = new WeakSet<object>();

/** Whether a route file's method export runs a handler of its own (not routes()' 405 answer). */
export function handlesMethod(exported: unknown): boolean {
  return typeof exported === "function" && !refusals.has(exported);
}

/**
 * Builds a full set of method exports for a route file. Missing methods answer
 * 405 method_not_allowed with Allow, in the envelope.
 */
export function routes<P = Record<string, string>>(handlers: RouteHandlers<P>): Record<Method, NextHandler<P>> {
  const allowed = Object.keys(handlers) as Method[];
  if (allowed.includes("GET")) allowed.push("HEAD");
  const out = {} as Record<Method, NextHandler<P>>;
  for (const m of ALL_METHODS) {
    const h = (handlers as Partial<Record<Method, Handler<P>>>)[m] ?? (m === "HEAD" ? handlers.GET : undefined);
    out[m] = async (req, ctx) => {
      const params = (await ctx?.params) ?? ({} as P);
      if (!h) return errorResponse(methodNotAllowed(allowed), req);
      return handle(h, req, params);
    };
    if (!h) refusals.add(out[m]);
  }
  return out;
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return Response.json(body, { status, headers: { "Cache-Control": "no-store", ...headers } });
}

/**
 * Reads a request body without ever holding more than `cap` bytes: a declared length over the
 * cap is refused before reading, and a stream that passes the cap is cancelled.
 */
export async function readBodyCapped(req: Request, cap: number, tooLarge: () => ApiError): Promise<Uint8Array> {
  const declared = req.headers.get("content-length");
  const length = declared !== null && /^\d+$/.test(declared) ? Number(declared) : undefined;
  if (length !== undefined && length > cap) throw tooLarge();
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  // One buffer of the declared length, filled as chunks arrive (a body is held once, not as
  // chunks and then a copy); without a length, or past it, the buffer grows by doubling.
  let out = new Uint8Array(length ?? 64 * 1024);
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.byteLength > cap) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    if (total + value.byteLength > out.byteLength) {
      const grown = new Uint8Array(Math.min(cap, Math.max(out.byteLength * 2, total + value.byteLength)));
      grown.set(out.subarray(0, total));
      out = grown;
    }
    out.set(value, total);
    total += value.byteLength;
  }
  return total === out.byteLength ? out : out.subarray(0, total);
}

/**
 * Reads a body as the chunks it arrived in, never joined (a zip is read by ranges: holding it
 * once costs its size, where joining would briefly cost twice that); nothing past the cap.
 */
export async function readBodyChunksCapped(
  req: Request,
  cap: number,
  tooLarge: () => ApiError,
): Promise<{ chunks: Uint8Array[]; length: number }> {
  const declared = req.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > cap) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let length = 0;
  if (!req.body) return { chunks, length };
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > cap) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    if (value.byteLength > 0) chunks.push(value);
  }
  return { chunks, length };
}

/**
 * Parses a small JSON body with a zod schema. An empty body is `{}` when `optional`;
 * anything unparseable or invalid is 400 invalid_request.
 */
export async function readJson<T>(
  req: Request,
  schema: {
    safeParse(
      v: unknown,
    ): { success: true; data: T } | { success: false; error: { issues: { message: string; path: PropertyKey[] }[] } };
  },
  opts: { optional?: boolean } = {},
): Promise<T> {
  const buf = await readBodyCapped(
    req,
    JSON_BODY_CAP,
    () => new ApiError("payload_too_large", "JSON bodies of this route are limited to 64 KB."),
  );
  const text = new TextDecoder().decode(buf).trim();
  let value: unknown = {};
  if (text === "") {
    if (!opts.optional) throw new ApiError("invalid_request", "A JSON body is required.");
  } else {
    try {
      value = JSON.parse(text);
    } catch {
      throw new ApiError("invalid_request", "The body is not valid JSON.");
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw ApiError.fromZod(parsed.error, "The body");
  return parsed.data;
}

/**
 * A JSON route that takes the session cookie refuses a body that is not `application/json`
 * (400 invalid_request): a form or a text/plain body is what a page of another site can send
 * without asking the browser first (DESIGN "Hardening decisions (round 5)", Origins). No body
 * passes.
 */
export function requireJsonBody(req: Request): void {
  if (req.body === null || req.headers.get("content-length") === "0") return;
  const media = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (media === "application/json") return;
  throw new ApiError(
    "invalid_request",
    "The body of this route is JSON: send it with Content-Type: application/json.",
    {
      hint: "Set the header Content-Type: application/json.",
    },
  );
}

/** Small JSON bodies (claim, keys, vanity, billing checkout): what readJson reads at most. */
export const JSON_BODY_CAP = 64 * 1024;
