import type { IncomingMessage, ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { getContext } from "../context";
import { env } from "../env";
import { ApiError } from "../errors";
import { handle, routeBodyCap, type Handler, type RouteHandlers } from "../http";
import { appendHandlers, deployHandlers, deployOnceHandlers, uploadHandlers } from "../deploy/handlers";
import { jsonRpcErrorBody, TOO_LARGE, tooLargeMessage } from "../mcp/jsonrpc";
import { SECRET_SEGMENT_PATTERN } from "../patterns";
import { resolveHost, type HostConfig } from "../serve/host";
import { DROP_HOST_HEADER, SERVE_PREFIX } from "../serve/internal";
import { malformedPath, notFoundPage, page, serveDropResult, type ServeResult } from "../serve/serve";

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

/**
 * The options server.mjs creates its listener with. By default Node keeps only the first of
 * repeated Authorization (and Host, Content-Type, …) headers, where the Fetch API joins them;
 * joined here too, every path (the data plane and Next) hands the one credential parser,
 * bearerCredential in lib/auth/caller.ts, what was sent, and it refuses two credentials with 401.
 * Nothing else in the listener reads a credential.
 */
export const listenerOptions = { joinDuplicateHeaders: true } as const;

let hostConfig: HostConfig | undefined;

function config(): HostConfig {
  if (!hostConfig) {
    const e = env();
    hostConfig = { serveDomain: e.SERVE_DOMAIN, appHost: new URL(e.BASE_URL).host };
  }
  return hostConfig;
}

/**
 * Throws the configuration error env() raises (EnvError, naming each variable), so server.mjs
 * refuses to start on a misconfiguration instead of failing on the first request.
 */
export function checkConfig(): void {
  config();
}

/**
 * Opens the app's context (database and its migrations, storage) as soon as the server listens,
 * so the first request does not wait seconds for it; logs one line when it is open:
 * {"msg":"context","db","ms"}. A failure is only logged: requests open it again (and answer 503
 * while the database cannot be reached).
 */
export function warmUp(): void {
  const started = performance.now();
  getContext().then(
    (ctx) => console.log(JSON.stringify({ msg: "context", db: ctx.dbHandle.kind, ms: Math.round(performance.now() - started) })),
    (err) => console.error("[serve] could not open the context at start:", err instanceof Error ? err.message : err),
  );
}

function envelope(res: ServerResponse, status: number, code: string, error: string): void {
  send(res, status, JSON.stringify({ error, code }));
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(body),
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
  });
  res.end(body);
}

/**
 * Closes a connection whose request body is refused: a FIN once the answer is out (so the
 * client reads it before any reset), and a hard close shortly after if the client keeps sending.
 */
function hangUp(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  socket.end();
  setTimeout(() => socket.destroy(), 2000).unref();
}

function write(req: IncomingMessage, res: ServerResponse, r: ServeResult): void {
  res.writeHead(r.status, r.headers);
  const body = r.body;
  if (body === null || req.method === "HEAD") {
    res.end();
    if (body instanceof ReadableStream) void body.cancel().catch(() => undefined);
  } else if (body instanceof Uint8Array) {
    res.end(body);
  } else {
    const stream = Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>);
    stream.on("error", () => res.destroy());
    res.on("close", () => stream.destroy());
    stream.pipe(res);
  }
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
 * A small request body (the unlock form), at most `cap` bytes: a larger declared length is
 * refused before reading (Node drops it once the answer is out, as for any unread body), and a
 * body that passes the cap is dropped as it arrives.
 */
function readNodeBody(req: IncomingMessage, cap: number): Promise<Uint8Array | "too_large"> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > cap) return Promise.resolve("too_large");
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let seen = 0;
    req.on("data", (chunk: Buffer) => {
      seen += chunk.byteLength;
      if (seen > cap) {
        chunks.length = 0;
        resolve("too_large");
      } else chunks.push(chunk);
    });
    req.once("end", () => resolve(seen > cap ? "too_large" : Buffer.concat(chunks)));
    req.once("close", () => resolve("too_large"));
    req.once("error", () => resolve("too_large"));
  });
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

/** Responses the data plane gave (the request log's "plane"); the others went to Next. */
const answeredHere = new WeakSet<ServerResponse>();

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

/** Runs a route handler through handle() (errors render the one envelope) and writes its Response. */
async function runHandler(req: IncomingMessage, res: ServerResponse, handler: Handler<Record<string, string>>, params: Record<string, string>): Promise<void> {
  const body = nodeBody(req);
  try {
    // Every header as sent (and as the listener set x-dropsite-socket-ip and x-request-id). Next
    // also fills in X-Forwarded-For with the socket address when absent; with TRUST_PROXY that
    // entry and no entry give the same client address (lib/ratelimit/address.ts), so it is not.
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      else headers.set(name, value);
    }
    // What Next hands a route handler: the app's origin and the request's path and query.
    const url = new URL(`${new URL(env().BASE_URL).origin}${req.url ?? "/"}`);
    const request = new Request(url, { method: req.method, headers, body: body.stream, duplex: "half" } as RequestInit & { duplex: "half" });
    const response = await handle(handler, request, params);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (res.headersSent || res.destroyed) return;
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") res.setHeader(name, value);
    });
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) res.setHeader("Set-Cookie", cookies);
    res.setHeader("Content-Length", bytes.byteLength);
    res.writeHead(response.status);
    res.end(bytes);
  } catch (err) {
    console.error("[deploy] data plane failed:", err instanceof Error ? err.message : err);
    if (!res.headersSent) envelope(res, 500, "internal_error", "Something went wrong on our side.");
    else res.destroy();
  } finally {
    // A body the handler did not read to its end is read and dropped, as Node does for a request
    // nobody reads, so a kept-alive connection can carry the next request.
    body.discard();
  }
}

/** Requests whose body capStream cut at the route's cap. */
const cutAtCap = new WeakSet<IncomingMessage>();

/**
 * The request body as a web stream over the Node stream, each chunk handed on as the Node
 * Buffer's own bytes. Readable.toWeb copies every chunk (to detach it from a pool), and so does
 * Next's adapter; holding a 25 MB zip as it arrives must cost 25 MB, not twice that. The Node
 * stream is paused while the web stream holds a chunk nobody read yet.
 */
function nodeBody(req: IncomingMessage): { stream: ReadableStream<Uint8Array>; discard: () => void } {
  let ended = false;
  let dropped = false;
  const onData = (chunk: Buffer) => {
    controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if ((controller.desiredSize ?? 0) <= 0) req.pause();
  };
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const fail = () =>
    controller.error(
      cutAtCap.has(req)
        ? new ApiError("payload_too_large", "The body is larger than this route accepts.")
        : new ApiError("invalid_request", "The connection closed before the request body ended."),
    );
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        req.on("data", onData);
        req.once("end", () => {
          ended = true;
          if (dropped) return;
          // A body cut at the route's cap (capStream drops its end too) is never one to act on.
          if (cutAtCap.has(req)) fail();
          else controller.close();
        });
        req.once("close", () => {
          if (ended || dropped) return;
          dropped = true;
          fail();
        });
      },
      pull() {
        req.resume();
      },
      cancel() {
        discard();
      },
    },
    { highWaterMark: 1 },
  );
  const discard = () => {
    if (ended || dropped) return;
    dropped = true;
    req.off("data", onData);
    req.resume();
  };
  return { stream, discard };
}

/**
 * The path of a request target without its query (absolute form included), with every segment
 * that carries a secret token (SECRET_SEGMENT_PATTERN: upload tokens, one-time deploy grants,
 * any key or claim token sent in a path) replaced by "(token)". One rule for every route, read
 * on the decoded segment, so a percent-escaped token is masked too.
 */
export function logPath(url: string): string {
  return pathOnly(url)
    .split("/")
    .map((segment) => (SECRET_SEGMENT_PATTERN.test(decodedSegment(segment)) ? "(token)" : segment))
    .join("/");
}

function decodedSegment(segment: string): string {
  if (!segment.includes("%")) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function pathOnly(url: string): string {
  let p = url;
  if (!p.startsWith("/")) {
    try {
      p = new URL(p).pathname;
    } catch {
      return "(not a path)";
    }
  }
  const q = p.indexOf("?");
  return q < 0 ? p : p.slice(0, q);
}

/** The host kind route() found for a request, so the request log does not resolve the Host again. */
const hostKinds = new WeakMap<IncomingMessage, "app" | "drop">();

function hostKind(req: IncomingMessage): "app" | "drop" {
  const known = hostKinds.get(req);
  if (known) return known;
  try {
    return resolveHost(req.headers.host, config()).kind === "app" ? "app" : "drop";
  } catch {
    return "app";
  }
}

/**
 * One structured line per request, written to stdout when the response is done (or the client
 * went away): {"msg":"request","method","host","path","status","ms","id","plane"}. The path
 * loses its query and every secret token in it (logPath); no header is logged, so no credential,
 * claim token or cookie ever reaches the log. "plane" says who answered: "data" (this module:
 * drop hosts, the deploy-body routes, and refusals before Next) or "next". The id is also sent
 * back as X-Request-Id (any id the client sent is replaced).
 */
export function logRequest(req: IncomingMessage, res: ServerResponse): void {
  const started = process.hrtime.bigint();
  const id = randomUUID();
  req.headers["x-request-id"] = id;
  res.setHeader("X-Request-Id", id);
  const method = req.method ?? "GET";
  const path = logPath(req.url ?? "/");
  let done = false;
  const line = () => {
    if (done) return;
    done = true;
    const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
    const status = res.headersSent ? res.statusCode : 0;
    const plane = answeredHere.has(res) ? "data" : "next";
    const host = hostKind(req);
    console.log(JSON.stringify({ msg: "request", method, host, path, status, ms, id, plane, ...(res.writableFinished ? {} : { aborted: true }) }));
  };
  res.once("finish", line);
  res.once("close", line);
}
