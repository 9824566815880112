import { randomUUID } from "node:crypto";
import { SECRET_SEGMENT_PATTERN } from "../patterns";
import { resolveHost } from "../serve/host";
import { config } from "./config";
import { env } from "../env";
import type { PlaneRequest, PlaneResponse } from "./request";
import { jsonString, logRendered } from "../log";
import { takeErrorCode } from "../log/codes";
import { observeRequest } from "../metrics/http";
import { appRouteName } from "./route-names";
import { endRequestSpan, startRequestSpan } from "../tracing";

// The request log of the self-hosted listener: one JSON line per request (the fields are in
// docs/operating.md, "Logs"), written by server.mjs through logRequest, with the request metrics.

/**
 * The path of a request target without its query (absolute form included), with every segment
 * that carries a secret token (SECRET_SEGMENT_PATTERN: upload tokens, one-time deploy grants,
 * any key or claim token sent in a path) replaced by "(token)". One rule for every route, read
 * on the decoded segment, so a percent-escaped token is masked too.
 */
export function logPath(url: string): string {
  const p = pathOnly(url);
  // Every secret's prefix ends in "_" (or "%5F" escaped): a path with neither holds no token.
  if (!p.includes("_") && !p.includes("%")) return p;
  return p
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

/** The host kind the dispatcher found (so the Host is not resolved again), or resolved here. */
function hostKind(req: PlaneRequest): "app" | "drop" | "domain" {
  const known = req.hostKind;
  if (known) return known;
  try {
    const kind = resolveHost(req.headers.host, config()).kind;
    return kind === "app" ? "app" : kind === "custom" ? "domain" : "drop";
  } catch {
    return "app";
  }
}

/**
 * One structured line per request when the response is done (or the client went away), and the
 * request metrics (lib/metrics/http.ts): {"time","level":"info","msg":"request","request_id",
 * "method","host_kind","path","status","duration_ms","bytes","error_code"?,"plane"}. The path
 * loses its query and every secret token in it (logPath); no header is logged, so no
 * credential, claim token or cookie ever reaches the log. "plane" says who answered: "data"
 * (the data plane: drop hosts, the deploy-body routes, refusals before Next) or "next". The id
 * is the service's own, sent back as X-Request-Id (by the dispatcher: ./node.ts); an X-Request-Id a trusted proxy sent
 * (TRUST_PROXY) is logged beside it as upstream_request_id, never adopted.
 */
export function logRequest(req: PlaneRequest, res: PlaneResponse): void {
  req.startedAt = performance.now();
  const id = randomUUID();
  req.requestId = id;
  req.upstreamId = req.headers["x-request-id"];
  req.headers["x-request-id"] = id;
  req.span = startRequestSpan(req.method ?? "GET", req.headers);
  // 'close' follows 'finish' on every response, and also ends one whose client went away: one
  // listener, the same function for every request (no closure or once-wrapper per request).
  res.on("close", writeLine);
}

/** The request's line and metrics, when its response closed (`this`: the response). */
function writeLine(this: PlaneResponse<PlaneRequest>): void {
  const req = this.req;
  const seconds = (performance.now() - req.startedAt) / 1000;
  const method = req.method ?? "GET";
  const url = req.url ?? "/";
  const status = this.headersSent ? this.statusCode : 0;
  const host = hostKind(req);
  const counted = !req.uncounted && metricsOn();
  if (counted || req.span) {
    const route =
      req.routeName ??
      (host === "app" ? appRouteName(method, pathOnly(url), req.headers["content-type"]) : "serve.drop");
    if (counted) observeRequest(req.answered ? "data" : "app", route, status, seconds);
    if (req.span) endRequestSpan(req.span, method, route, status, { path: logPath(url), scheme: schemeOf(req) });
  }
  const fields: RequestFields = {
    request_id: req.requestId,
    method,
    host_kind: host,
    path: logPath(url),
    status,
    duration_ms: Math.round(seconds * 1e4) / 10,
    bytes: method === "HEAD" ? 0 : this.bodyBytes,
    error_code: takeErrorCode(req.requestId, status),
    plane: req.answered ? "data" : "next",
    upstream_request_id: typeof req.upstreamId === "string" && trustProxy() ? req.upstreamId.slice(0, 200) : undefined,
    aborted: this.writableFinished ? undefined : true,
  };
  logRendered("info", "request", requestJson(fields), () => fields);
}

type RequestFields = {
  request_id: string;
  method: string;
  host_kind: string;
  path: string;
  status: number;
  duration_ms: number;
  bytes: number;
  error_code: string | undefined;
  plane: "data" | "next";
  upstream_request_id: string | undefined;
  aborted: true | undefined;
};

/** The request line's fields as JSON, in their order, written out (JSON.stringify of the object gives the same). */
export function requestJson(f: RequestFields): string {
  let json = `"request_id":${jsonString(f.request_id)},"method":${jsonString(f.method)},"host_kind":${jsonString(f.host_kind)},"path":${jsonString(f.path)},"status":${f.status},"duration_ms":${f.duration_ms},"bytes":${f.bytes}`;
  if (f.error_code !== undefined) json += `,"error_code":${jsonString(f.error_code)}`;
  json += `,"plane":"${f.plane}"`;
  if (f.upstream_request_id !== undefined) json += `,"upstream_request_id":${jsonString(f.upstream_request_id)}`;
  if (f.aborted) json += `,"aborted":true`;
  return json;
}

let scraped: boolean | undefined;

/** Whether anything can scrape the metrics (METRICS_PORT or METRICS_TOKEN): otherwise requests are not counted. */
function metricsOn(): boolean {
  if (scraped === undefined) {
    try {
      const e = env();
      scraped = e.METRICS_PORT !== undefined || e.METRICS_TOKEN !== undefined;
    } catch {
      scraped = false;
    }
  }
  return scraped;
}

/** The scheme the client used: a trusted proxy's X-Forwarded-Proto, else this listener's (plain HTTP). */
function schemeOf(req: PlaneRequest): string {
  const proto = req.headers["x-forwarded-proto"];
  return trustProxy() && (proto === "https" || proto === "http") ? proto : "http";
}

function trustProxy(): boolean {
  try {
    return env().TRUST_PROXY;
  } catch {
    return false;
  }
}
