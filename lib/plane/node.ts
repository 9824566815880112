import type { IncomingMessage, ServerResponse } from "node:http";
import { getContext } from "../context";
import { env } from "../env";
import { routeBodyCap, type Handler, type RouteHandlers } from "../http";
import { appendHandlers, deployHandlers, deployOnceHandlers, uploadHandlers } from "../deploy/handlers";
import { jsonRpcErrorBody, TOO_LARGE, tooLargeMessage } from "../mcp/jsonrpc";
import { resolveHost } from "../serve/host";
import { DROP_HOST_HEADER, SERVE_PREFIX } from "../serve/internal";
import { malformedPath, notFoundPage, page, serveDropResult } from "../serve/serve";
import { cutAtCap, envelope, hangUp, readNodeBody, runHandler, send, write } from "./adapter";
import { config } from "./config";
import { startWebhookWorker } from "../webhooks/deliver";
import { answeredHere, hostKinds } from "./log";

export { logPath, logRequest } from "./log";

// The self-hosted data plane: server.mjs hands every request to dispatch() first. Drop hosts
// are answered here, by the same lib/serve function the Vercel serve route runs, with no
// framework work per request. So are the app host's routes that receive deploy bytes (POST
// /deploy, /deploy/once/{token}, /deploy/{slug}, PUT /deploy/uploads/{token}/{sha256}), by the
// same handlers their route.ts files run on Vercel: their bodies are read from the socket
// without the framework's copy of every chunk. The rest of the app host goes on to Next after
// the checks Next would make too late (a body past its route's cap, a path that does not
// decode, an absolute-form target).
// Built by `npm run build` into .next/dropsite/data-plane.mjs (scripts/build-data-plane.mjs),
// a bundle that must not load Next or next-auth (tests/unit/data-plane-bundle.test.ts).
// This file is the dispatcher; ./adapter.ts turns Node's request and response into the web
// types the handlers and the serve function use, ./log.ts writes the request log.

/**
 * The options server.mjs creates its listener with. By default Node keeps only the first of
 * repeated Authorization (and Host, Content-Type, …) headers, where the Fetch API joins them;
 * joined here too, every path (the data plane and Next) hands the one credential parser,
 * bearerCredential in lib/auth/caller.ts, what was sent, and it refuses two credentials with 401.
 * Nothing else in the listener reads a credential.
 */
export const listenerOptions = { joinDuplicateHeaders: true } as const;

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
    return { workers, warning: `Rate limits are counted per worker (${workers} workers allow ${workers} times each budget): set REDIS_URL to share them.` };
  }
  return { workers };
}

/**
 * Opens the app's context (database and its migrations, storage) as soon as the server listens,
 * so the first request does not wait seconds for it; logs one line when it is open:
 * {"msg":"context","db","ms"}. A failure is only logged: requests open it again (and answer 503
 * while the database cannot be reached). Then starts the webhook delivery worker of this process
 * (lib/webhooks/deliver.ts; on Vercel GET /cron/webhooks runs the same passes).
 */
export function warmUp(): void {
  const started = performance.now();
  getContext().then(
    (ctx) => {
      console.log(JSON.stringify({ msg: "context", db: ctx.dbHandle.kind, ms: Math.round(performance.now() - started) }));
      startWebhookWorker(ctx);
    },
    (err) => console.error("[serve] could not open the context at start:", err instanceof Error ? err.message : err),
  );
}

async function serveNode(req: IncomingMessage, res: ServerResponse, action: ReturnType<typeof resolveHost>): Promise<void> {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const pathname = q < 0 ? url : url.slice(0, q);
  const search = q < 0 ? "" : url.slice(q);
  const headers = req.headers;
  try {
    const ctx = await getContext();
    const r = await serveDropResult(ctx, action, {
      method: req.method ?? "GET",
      pathname,
      search,
      headers: {
        get(name) {
          const v = headers[name];
          return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
        },
      },
      readBody: (cap) => readNodeBody(req, cap),
    });
    write(req, res, r);
  } catch (err) {
    console.error("[serve] failed:", err instanceof Error ? err.message : err);
    if (!res.headersSent) write(req, res, page(500, "Something went wrong", "This drop cannot be served right now."));
    else res.destroy();
  }
}

/**
 * The 413 of a body past its route's cap, in the route's own error form: the REST envelope, or
 * on /mcp the JSON-RPC error object an MCP client reads (the one lib/mcp/server.ts gives).
 */
function tooLarge(res: ServerResponse, pathname: string, cap: number, declared?: string): void {
  if (pathname === "/mcp") return send(res, 413, jsonRpcErrorBody(TOO_LARGE, tooLargeMessage(cap)));
  envelope(res, 413, "payload_too_large", `This route accepts at most ${cap} bytes of body${declared === undefined ? "" : `; this request declares ${declared}`}.`);
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
  const dropHost = req.headers[DROP_HOST_HEADER];
  const action = resolveHost(typeof dropHost === "string" && dropHost !== "" ? dropHost : req.headers.host, config());
  if (action.kind === "app") return write(req, res, notFoundPage());
  await serveNode(req, res, action);
}

/**
 * Takes the request when it is the data plane's (or refused before Next); false hands it on to
 * Next unchanged (but with an origin-form URL).
 */
export function dispatch(req: IncomingMessage, res: ServerResponse): boolean {
  let taken = true;
  try {
    taken = route(req, res);
  } catch (err) {
    console.error("[serve] dispatch failed:", err instanceof Error ? err.message : err);
    if (!res.headersSent) envelope(res, 500, "internal_error", "Something went wrong on our side.");
  }
  if (taken) answeredHere.add(res);
  return taken;
}

function route(req: IncomingMessage, res: ServerResponse): boolean {
  // Only Vercel sets this; here it would make the proxy run (and buffer bodies), see proxy.ts.
  delete req.headers["x-vercel-id"];
  const url = req.url ?? "/";
  if (!url.startsWith("/")) {
    // Absolute form (GET http://other.example/x HTTP/1.1): the target's authority is ignored;
    // the Host header decides, and the path is served as if sent in origin form.
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
    req.url = parsed.pathname + parsed.search;
  }
  const action = resolveHost(req.headers.host, config());
  hostKinds.set(req, action.kind === "app" ? "app" : "drop");
  if (action.kind !== "app") {
    void serveNode(req, res, action);
    return true;
  }
  const q = req.url!.indexOf("?");
  const pathname = q < 0 ? req.url! : req.url!.slice(0, q);
  if (malformedPath(pathname)) {
    envelope(res, 400, "invalid_request", "The path has a percent-escape that does not decode.");
    return true;
  }
  const cap = routeBodyCap(pathname);
  if (cap !== undefined) {
    const declared = req.headers["content-length"];
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > cap) {
      // Answered before any byte of the body is read; Node then reads and discards what the
      // client still sends (nothing is kept), so the client can read this answer in peace.
      tooLarge(res, pathname, cap, declared);
      return true;
    }
    if (declared === undefined) capStream(req, res, pathname, cap);
  }
  const own = bodyRoute(req, pathname);
  if (own) {
    void runHandler(req, res, own.handler, own.params);
    return true;
  }
  return false;
}

// The app host's routes that receive deploy bytes, with the handler objects their route.ts files
// export through routes(). Only plain path parameters (the characters of slugs, tokens and
// hashes) are taken here, so they need no decoding; anything else goes to Next as before.
const PARAM = "([A-Za-z0-9_-]+)";
const BODY_ROUTES: { pattern: RegExp; handlers: RouteHandlers<Record<string, string>>; names: string[] }[] = [
  { pattern: /^\/deploy$/, handlers: deployHandlers, names: [] },
  { pattern: new RegExp(`^/deploy/once/${PARAM}$`), handlers: deployOnceHandlers as RouteHandlers<Record<string, string>>, names: ["token"] },
  { pattern: new RegExp(`^/deploy/uploads/${PARAM}/${PARAM}$`), handlers: uploadHandlers as RouteHandlers<Record<string, string>>, names: ["token", "sha256"] },
  // /deploy/preflight has its own route (a small JSON body, read by Next); once and uploads are folders.
  { pattern: new RegExp(`^/deploy/(?!(?:preflight|once|uploads)$)${PARAM}$`), handlers: appendHandlers as RouteHandlers<Record<string, string>>, names: ["slug"] },
];

/**
 * The data plane's handler for this request, when it is one of BODY_ROUTES's methods and
 * carries a body (a Content-Length or Transfer-Encoding header). A request without one goes to
 * Next, as every other method does: there the proxy runs for it (see proxy.ts's matcher).
 */
function bodyRoute(req: IncomingMessage, pathname: string): { handler: Handler<Record<string, string>>; params: Record<string, string> } | undefined {
  if (req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined) return undefined;
  for (const r of BODY_ROUTES) {
    const m = r.pattern.exec(pathname);
    if (!m) continue;
    const handler = r.handlers[req.method as keyof RouteHandlers];
    if (!handler) return undefined;
    return { handler, params: Object.fromEntries(r.names.map((n, i) => [n, m[i + 1]!])) };
  }
  return undefined;
}

/** Cuts a chunked (or any undeclared) body at `cap`: answers 413 and drops the connection. */
function capStream(req: IncomingMessage, res: ServerResponse, pathname: string, cap: number): void {
  let seen = 0;
  let over = false;
  const push = req.push.bind(req);
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (over) return false;
    if (chunk !== null && chunk !== undefined) {
      seen += (chunk as Uint8Array).byteLength ?? 0;
      if (seen > cap) {
        over = true;
        cutAtCap.add(req);
        // The rest of the body is dropped as it arrives; once the answer is out the connection is
        // closed (a body that never ends would hold it open otherwise).
        if (!res.headersSent) tooLarge(res, pathname, cap);
        if (res.writableEnded) hangUp(res);
        else res.once("finish", () => hangUp(res));
        return false;
      }
    }
    return push(chunk, encoding);
  };
}
