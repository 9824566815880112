import { randomUUID } from "node:crypto";
import { SECRET_SEGMENT_PATTERN } from "../patterns";
import { resolveHost } from "../serve/host";
import { config } from "./config";
import { env } from "../env";
import type { PlaneRequest, PlaneResponse } from "./request";
import { log } from "../log";
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
 * is the service's own, sent back as X-Request-Id; an X-Request-Id a trusted proxy sent
 * (TRUST_PROXY) is logged beside it as upstream_request_id, never adopted.
 */
export function logRequest(req: PlaneRequest, res: PlaneResponse): void {
  const started = process.hrtime.bigint();
  const id = randomUUID();
  const upstream = req.headers["x-request-id"];
  req.headers["x-request-id"] = id;
  res.setHeader("X-Request-Id", id);
  const method = req.method ?? "GET";
  const url = req.url ?? "/";
  req.span = startRequestSpan(method, req.headers);
  let done = false;
  const line = () => {
    if (done) return;
    done = true;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const status = res.headersSent ? res.statusCode : 0;
    const plane = req.answered ? "data" : "next";
    const host = hostKind(req);
    const counted = !req.uncounted && metricsOn();
    if (counted || req.span) {
      const route =
        req.routeName ??
        (host === "app" ? appRouteName(method, pathOnly(url), req.headers["content-type"]) : "serve.drop");
      if (counted) observeRequest(req.answered ? "data" : "app", route, status, seconds);
      if (req.span) endRequestSpan(req.span, method, route, status);
    }
    const errorCode = takeErrorCode(id, status);
    log("info", "request", {
      request_id: id,
      method,
      host_kind: host,
      path: logPath(url),
      status,
      duration_ms: Math.round(seconds * 1e4) / 10,
      bytes: method === "HEAD" ? 0 : res.bodyBytes,
      error_code: errorCode,
      plane,
      upstream_request_id: typeof upstream === "string" && trustProxy() ? upstream.slice(0, 200) : undefined,
      aborted: res.writableFinished ? undefined : true,
    });
  };
  res.once("finish", line);
  res.once("close", line);
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

function trustProxy(): boolean {
  try {
    return env().TRUST_PROXY;
  } catch {
    return false;
  }
}
