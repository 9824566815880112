import type { IncomingMessage, ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import { getContext } from "../context";
import { openDb } from "../db/client";
import { env } from "../env";
import type { RouteHandlers } from "../http";
import { matchBodyRoute, type BodyRoute, type PathParams, type PlanePath } from "../http-routes";
import { appendHandlers, deployHandlers, deployOnceHandlers, uploadHandlers } from "../deploy/handlers";
import { jsonRpcErrorBody, TOO_LARGE, tooLargeMessage } from "../mcp/jsonrpc";
import { resolveHost } from "../serve/host";
import { DROP_HOST_HEADER, SERVE_PREFIX } from "../serve/internal";
import { notFoundPage, page } from "../serve/pages";
import { malformedPath } from "../serve/paths";
import { serveDropResult } from "../serve/serve";
import type { ServeRequest } from "../serve/types";
import { envelope, hangUp, readNodeBody, runHandler, send, write } from "./adapter";
import { config } from "./config";
import { startWebhookWorker } from "../webhooks/deliver";
import { PlaneRequest, PlaneResponse } from "./request";
import { metricsTokenMatches, startMetrics as startScrape, writeScrape } from "../metrics/scrape";
import { log, routeConsole } from "../log";
import { inRequestSpan, startTracing as startSdk } from "../tracing";
import { countAnswer } from "../stats/count";

export { logPath, logRequest } from "./log";
export { routeConsole };
/** Writes the counts this process holds (lib/stats); server.mjs awaits it when it stops. */
export { flushAll as flushStats } from "../stats/collector";

// The self-hosted data plane: server.mjs hands every request to dispatch() first. Drop hosts
// are answered here, by the same lib/serve function the Vercel serve route runs, with no
// framework work per request. So are the app host's routes that receive deploy bytes (the
// `plane` rows of lib/http-routes.ts: POST /deploy, /deploy/once/{token}, /deploy/{slug}, PUT
// /deploy/uploads/{token}/{sha256}), by the same handlers their route.ts files run on Vercel:
// their bodies are read from the socket without the framework's copy of every chunk. The rest
// of the app host goes on to Next after the checks Next would make too late (a body past its
// route's cap in that table, a path that does not decode, an absolute-form target).
// Built by `npm run build` into .next/dropsite/data-plane.mjs (scripts/build-data-plane.mjs),
// a bundle that must not load Next or next-auth (tests/unit/data-plane-bundle.test.ts).
// This file is the dispatcher; ./request.ts is the listener's request class (the body cap),
// ./adapter.ts turns Node's request and response into the web types the handlers and the serve
// function use, ./log.ts writes the request log.

/**
 * The options server.mjs creates its listener with. By default Node keeps only the first of
 * repeated Authorization (and Host, Content-Type, …) headers, where the Fetch API joins them;
 * joined here too, every path (the data plane and Next) hands the one credential parser,
 * bearerCredential in lib/auth/caller.ts, what was sent, and it refuses two credentials with 401.
 * Nothing else in the listener reads a credential. Requests are PlaneRequests (./request.ts): a
 * body cap the dispatcher sets, the host kind and who answered, for the request log.
 */
export const listenerOptions = {
  joinDuplicateHeaders: true,
  IncomingMessage: PlaneRequest,
  ServerResponse: PlaneResponse,
} as const;

/**
 * Sets this process up for metric scrapes (lib/metrics/scrape.ts): server.mjs calls it in the
 * cluster's primary and in every worker (or in its one process); the METRICS_PORT listener, if
 * any, runs in the primary (or the one process).
 */
export function startMetrics(): void {
  startScrape(env());
}

/**
 * Starts OpenTelemetry tracing when the configuration asks for it (lib/tracing): server.mjs
 * awaits it in each process that answers requests, before Next loads, so Next's spans join the
 * same provider. With no endpoint set nothing is loaded.
 */
export function startTracing(): Promise<boolean> {
  return startSdk(env());
}

/** Runs a request's handling (the data plane, then Next) inside its server span, if it has one. */
export function traced(req: PlaneRequest, run: () => void): void {
  inRequestSpan(req.span, run);
}

/**
 * Throws the configuration error env() raises (EnvError, naming each variable), so server.mjs
 * refuses to start on a misconfiguration instead of failing on the first request.
 */
export function checkConfig(): void {
  config();
}

/**
 * How server.mjs runs: the number of workers (WEB_CONCURRENCY, checked by checkConfig) and, with
 * more than one, a warning when the rate limits would be counted per worker.
 */
export function clusterPlan(): { workers: number; warning?: string } {
  const e = env();
  const workers = e.WEB_CONCURRENCY;
  if (workers > 1 && !e.REDIS_URL && !e.UPSTASH_REDIS_REST_URL) {
    return {
      workers,
      warning: `Rate limits are counted per worker (${workers} workers allow ${workers} times each budget): set REDIS_URL to share them.`,
    };
  }
  return { workers };
}

/**
 * Applies the database migrations once, in the cluster's primary before it starts workers, so N
 * workers starting together do not race to migrate one PostgreSQL database.
 */
export async function migrateDatabase(): Promise<void> {
  const e = env();
  const handle = await openDb({ databaseUrl: e.DATABASE_URL, dataDir: e.DATA_DIR });
  await handle.close();
}

/**
 * Opens the app's context (database and its migrations, storage) as soon as the server listens,
 * so the first request does not wait seconds for it; logs one line when it is open:
 * {"time","level":"info","msg":"context","db","ms"}. A failure is only logged: requests open it again (and answer 503
 * while the database cannot be reached). Then starts the webhook delivery worker of this process
 * (lib/webhooks/deliver.ts; on Vercel GET /cron/webhooks runs the same passes).
 */
export function warmUp(): void {
  const started = performance.now();
  getContext().then(
    (ctx) => {
      log("info", "context", { db: ctx.dbHandle.kind, ms: Math.round(performance.now() - started) });
      startWebhookWorker(ctx);
    },
    (err) => console.error("[serve] could not open the context at start:", err instanceof Error ? err.message : err),
  );
}

async function serveNode(
  req: IncomingMessage,
  res: ServerResponse,
  action: ReturnType<typeof resolveHost>,
): Promise<void> {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const pathname = q < 0 ? url : url.slice(0, q);
  const search = q < 0 ? "" : url.slice(q);
  const headers = req.headers;
  const getter = {
    get(name: string) {
      const v = headers[name];
      return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
    },
  };
  try {
    const ctx = await getContext();
    const asked: ServeRequest = {
      method: req.method ?? "GET",
      pathname,
      search,
      headers: getter,
      readBody: (cap) => readNodeBody(req, cap),
    };
    const r = await serveDropResult(ctx, action, asked);
    write(req, res, r);
    countAnswer(ctx, config(), action, asked, r);
  } catch (err) {
    console.error("[serve] failed:", err instanceof Error ? err.message : err);
    if (res.headersSent) return void res.destroy();
    write(req, res, page(500, "Something went wrong", "This drop cannot be served right now."));
  }
}

/**
 * Keeps Next's record of the proxy's rewrite (x-middleware-rewrite) off a drop's answer on the
 * `next start` path: Next's router sets it on the response before the route runs, so it is
 * removed here, and this response's setHeader declines every x-middleware-* name set later.
 */
function withoutNextHeaders(res: ServerResponse): void {
  for (const name of res.getHeaderNames()) if (name.startsWith("x-middleware-")) res.removeHeader(name);
  const setHeader = res.setHeader.bind(res);
  res.setHeader = (name: string, value: number | string | readonly string[]) =>
    name.toLowerCase().startsWith("x-middleware-") ? res : setHeader(name, value);
}

/**
 * The 413 of a body past its route's cap, in the route's own error form: the REST envelope, or
 * on /mcp the JSON-RPC error object an MCP client reads (the one lib/mcp/server.ts gives).
 */
function tooLarge(res: ServerResponse, route: BodyRoute, cap: number, declared?: string): void {
  if (route.refusal === "jsonrpc") {
    const id = res.getHeader("X-Request-Id");
    return send(res, 413, jsonRpcErrorBody(TOO_LARGE, tooLargeMessage(cap), typeof id === "string" ? id : undefined));
  }
  envelope(
    res,
    413,
    "payload_too_large",
    `This route accepts at most ${cap} bytes of body${declared === undefined ? "" : `; this request declares ${declared}`}.`,
  );
}

/**
 * The serve route behind Next (pages/api/serve-drop, where proxy.ts rewrites drop hosts): the
 * same Node writer as the data plane, so both paths answer a drop with the same bytes and
 * headers. Next hands the request with its original target (`next start`) or the rewritten one
 * (Vercel); the internal prefix is removed either way. On the app host there is no drop to serve.
 */
export async function serveRewritten(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? "/";
  if (url === SERVE_PREFIX || url.startsWith(`${SERVE_PREFIX}/`) || url.startsWith(`${SERVE_PREFIX}?`)) {
    const rest = url.slice(SERVE_PREFIX.length);
    req.url = rest.startsWith("/") ? rest : `/${rest}`;
  }
  // Answered exactly as the data plane answers: no listener of ours gave the request an id here
  // (server.mjs does not run), and nothing of Next's rewrite is sent.
  withoutNextHeaders(res);
  const planeReq = req as Partial<PlaneRequest>;
  if (!planeReq.requestId) planeReq.requestId = randomUUID();
  const dropHost = req.headers[DROP_HOST_HEADER];
  // The drop host is the request's host from here on (what its pages link to, what the counts
  // compare a referrer with), as when the data plane answers it directly.
  if (typeof dropHost === "string" && dropHost !== "") req.headers.host = dropHost;
  const action = resolveHost(req.headers.host, config());
  if (action.kind === "app") return write(req, res, notFoundPage());
  await serveNode(req, res, action);
}

/**
 * Takes the request when it is the data plane's (or refused before Next); false hands it on to
 * Next unchanged (but with an origin-form URL).
 */
export function dispatch(req: PlaneRequest, res: ServerResponse): boolean {
  let taken = true;
  try {
    taken = route(req, res);
  } catch (err) {
    console.error("[serve] dispatch failed:", err instanceof Error ? err.message : err);
    if (!res.headersSent) {
      sendRequestId(req, res);
      envelope(res, 500, "internal_error", "Something went wrong on our side.");
    }
  }
  req.answered = taken;
  return taken;
}

/**
 * Every answer carries the request's id (X-Request-Id, from logRequest). A drop's answer gets it
 * among the headers its writer hands writeHead at once (write() in ./adapter.ts), the cheap path
 * of a response with no header set before; every other answer gets it here, first.
 */
function sendRequestId(req: PlaneRequest, res: ServerResponse): void {
  if (req.requestId !== "") res.setHeader("X-Request-Id", req.requestId);
}

function route(req: PlaneRequest, res: ServerResponse): boolean {
  // Only Vercel sets this; here it would make the proxy run (and buffer bodies), see proxy.ts.
  if (req.headers["x-vercel-id"] !== undefined) delete req.headers["x-vercel-id"];
  let url = req.url ?? "/";
  if (url.charCodeAt(0) !== 47 /* "/" */) {
    sendRequestId(req, res);
    // Absolute form (GET http://other.example/x HTTP/1.1): the target's authority is the host
    // (RFC 9112 section 3.2.2: the Host header is ignored), so a proxy or cache keying on the
    // full URL never gets another site's answer. From here on (and in Next) the request is in
    // origin form with that Host.
    let parsed: URL | undefined;
    try {
      parsed = url === "*" ? undefined : new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      envelope(res, 400, "invalid_request", "The request target is not a path.");
      return true;
    }
    url = req.url = parsed.pathname + parsed.search;
    req.headers.host = parsed.host;
  }
  const action = resolveHost(req.headers.host, config());
  if (action.kind !== "app") {
    req.hostKind = action.kind === "custom" ? "domain" : "drop";
    req.routeName = SERVE_ROUTE[action.kind];
    void serveNode(req, res, action);
    return true;
  }
  req.hostKind = "app";
  sendRequestId(req, res);
  const q = url.indexOf("?");
  const pathname = q < 0 ? url : url.slice(0, q);
  if (malformedPath(pathname)) {
    envelope(res, 400, "invalid_request", "The path has a percent-escape that does not decode.");
    return true;
  }
  if (pathname === "/metrics" && env().METRICS_TOKEN !== undefined) {
    answerMetrics(req, res, env().METRICS_TOKEN!);
    return true;
  }
  const match = matchBodyRoute(pathname);
  if (!match) return false;
  const declared = req.headers["content-length"];
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > match.cap) {
    // Answered before any byte of the body is read; Node then reads and discards what the
    // client still sends (nothing is kept), so the client can read this answer in peace.
    tooLarge(res, match.rows[0]!, match.cap, declared);
    return true;
  }
  if (declared === undefined) req.capBody(match.cap, () => refuseCut(res, match.rows[0]!, match.cap));
  // The data plane runs the handler itself for its rows when the request carries a body (one
  // without goes to Next, where the proxy runs for it: see proxy.ts's matcher), and only for
  // plain path parameters (the characters of slugs, tokens and hashes), which need no decoding.
  const row = match.rows.find((r) => r.method === req.method);
  if (!row?.plane || (declared === undefined && req.headers["transfer-encoding"] === undefined)) return false;
  for (const name in match.params) if (!PLAIN.test(match.params[name]!)) return false;
  const handler = (PLANE_HANDLERS[row.path as PlanePath] as RouteHandlers<Record<string, string>>)[row.method];
  if (!handler) return false;
  void runHandler(req, res, handler, match.params);
  return true;
}

const PLAIN = /^[A-Za-z0-9_-]+$/;

/** The route names of drop hosts (the metrics' `route`), by the host's kind. */
const SERVE_ROUTE = {
  drop: "serve.drop",
  vanity: "serve.vanity",
  preview: "serve.preview",
  custom: "serve.domain",
  "invalid-drop-host": "serve.invalid_host",
} as const;

/** GET /metrics on the app host with METRICS_TOKEN set: the scrape to its bearer, not counted itself. */
function answerMetrics(req: PlaneRequest, res: ServerResponse, token: string): void {
  req.uncounted = true;
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("Allow", "GET, HEAD");
    return envelope(res, 405, "method_not_allowed", "Method not allowed. Allowed: GET, HEAD.");
  }
  if (!metricsTokenMatches(req.headers.authorization, token)) {
    res.setHeader("WWW-Authenticate", 'Bearer realm="metrics"');
    return envelope(res, 401, "auth_required", "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.");
  }
  void writeScrape(res, req.method === "HEAD");
}

/** The handlers of the table's `plane` rows (lib/http-routes.ts), the objects their route files export. */
const PLANE_HANDLERS: { [P in PlanePath]: RouteHandlers<PathParams<P>> } = {
  "/deploy": deployHandlers,
  "/deploy/once/{token}": deployOnceHandlers,
  "/deploy/{slug}": appendHandlers,
  "/deploy/uploads/{token}/{sha256}": uploadHandlers,
};

/** A chunked (or any undeclared) body cut at its cap: 413 now, and the connection closed once it is out. */
function refuseCut(res: ServerResponse, row: BodyRoute, cap: number): void {
  // The rest of the body is dropped as it arrives; once the answer is out the connection is
  // closed (a body that never ends would hold it open otherwise).
  if (!res.headersSent) tooLarge(res, row, cap);
  if (res.writableEnded) hangUp(res);
  else res.once("finish", () => hangUp(res));
}
