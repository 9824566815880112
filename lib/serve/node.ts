import type { IncomingMessage, ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { getContext } from "../context";
import { env } from "../env";
import { routeBodyCap } from "../http";
import { resolveHost, type HostConfig } from "./host";
import { malformedPath, page, serveDropResult, type ServeResult } from "./serve";

// The self-hosted data plane: server.mjs hands every request to dispatch() first. Drop hosts
// are answered here, by the same lib/serve function the Vercel serve route runs, with no
// framework work per request; the app host goes on to Next after the checks Next would make
// too late (a body past its route's cap, a path that does not decode, an absolute-form target).
// Built by `npm run build` into .next/dropsite/data-plane.mjs (scripts/build-data-plane.mjs).

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

function envelope(res: ServerResponse, status: number, code: string, error: string): void {
  const body = JSON.stringify({ error, code });
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
    });
    write(req, res, r);
  } catch (err) {
    console.error("[serve] failed:", err instanceof Error ? err.message : err);
    if (!res.headersSent) write(req, res, page(500, "Something went wrong", "This drop cannot be served right now."));
    else res.destroy();
  }
}

/** Cuts a chunked (or any undeclared) body at `cap`: answers 413 and drops the connection. */
function capStream(req: IncomingMessage, res: ServerResponse, cap: number): void {
  let seen = 0;
  let over = false;
  const push = req.push.bind(req);
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (over) return false;
    if (chunk !== null && chunk !== undefined) {
      seen += (chunk as Uint8Array).byteLength ?? 0;
      if (seen > cap) {
        over = true;
        // The rest of the body is dropped as it arrives; once the answer is out the connection is
        // closed (a body that never ends would hold it open otherwise).
        if (!res.headersSent) envelope(res, 413, "payload_too_large", `This route accepts at most ${cap} bytes of body.`);
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
  try {
    return route(req, res);
  } catch (err) {
    console.error("[serve] dispatch failed:", err instanceof Error ? err.message : err);
    if (!res.headersSent) envelope(res, 500, "internal_error", "Something went wrong on our side.");
    return true;
  }
}

function route(req: IncomingMessage, res: ServerResponse): boolean {
  // Only Vercel sets this; here it would make the proxy run (and buffer bodies), see proxy.ts.
  delete req.headers["x-vercel-id"];
  // Node keeps only the first of repeated Authorization headers; the Fetch API joins them. Join
  // them here too, so the one parser (bearerCredential) sees both and refuses them with 401.
  const auths = authorizationHeaders(req);
  if (auths.length > 1) req.headers.authorization = auths.join(", ");
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
      envelope(res, 413, "payload_too_large", `This route accepts at most ${cap} bytes of body; this request declares ${declared}.`);
      return true;
    }
    if (declared === undefined) capStream(req, res, cap);
  }
  return false;
}

function authorizationHeaders(req: IncomingMessage): string[] {
  const out: string[] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === "authorization") out.push(raw[i + 1]!);
  }
  return out;
}

/**
 * The path of a request target without its query (absolute form included), and without the
 * upload token of PUT /deploy/uploads/{token}/{sha256}, which is a credential.
 */
function logPath(url: string): string {
  const p = pathOnly(url);
  return p.startsWith("/deploy/uploads/") ? p.replace(/^\/deploy\/uploads\/[^/]*/, "/deploy/uploads/(token)") : p;
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

function hostKind(req: IncomingMessage): "app" | "drop" {
  try {
    return resolveHost(req.headers.host, config()).kind === "app" ? "app" : "drop";
  } catch {
    return "app";
  }
}

/**
 * One structured line per request, written to stdout when the response is done (or the client
 * went away): {"msg":"request","method","host","path","status","ms","id"}. The path loses its
 * query; no header is logged, so no credential, claim token or cookie ever reaches the log. The
 * id is also sent back as X-Request-Id (any id the client sent is replaced).
 */
export function logRequest(req: IncomingMessage, res: ServerResponse): void {
  const started = process.hrtime.bigint();
  const id = randomUUID();
  req.headers["x-request-id"] = id;
  res.setHeader("X-Request-Id", id);
  const method = req.method ?? "GET";
  const host = hostKind(req);
  const path = logPath(req.url ?? "/");
  let done = false;
  const line = () => {
    if (done) return;
    done = true;
    const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
    const status = res.headersSent ? res.statusCode : 0;
    console.log(JSON.stringify({ msg: "request", method, host, path, status, ms, id, ...(res.writableFinished ? {} : { aborted: true }) }));
  };
  res.once("finish", line);
  res.once("close", line);
}
