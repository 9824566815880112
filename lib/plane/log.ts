import type { ServerResponse } from "node:http";
import { randomUUID } from "node:crypto";
import { SECRET_SEGMENT_PATTERN } from "../patterns";
import { resolveHost } from "../serve/host";
import { config } from "./config";
import type { PlaneRequest } from "./request";

// The request log of the self-hosted listener: one JSON line per request (the format is in
// docs/decisions.md), written by server.mjs through logRequest.

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

/** The host kind the dispatcher found (so the Host is not resolved again), or resolved here. */
function hostKind(req: PlaneRequest): "app" | "drop" {
  const known = req.hostKind;
  if (known) return known;
  try {
    return resolveHost(req.headers.host, config()).kind === "app" ? "app" : "drop";
  } catch {
    return "app";
  }
}

let stdoutGuarded = false;

/**
 * Writes one log line to stdout. A stdout that closed (a log collector gone: EPIPE) must not
 * take the server down: console.log ignores its stream's errors, and so does this.
 */
function writeLine(line: string): void {
  if (!stdoutGuarded) {
    stdoutGuarded = true;
    process.stdout.on("error", () => undefined);
  }
  process.stdout.write(line);
}

/**
 * One structured line per request, written to stdout when the response is done (or the client
 * went away): {"msg":"request","method","host","path","status","ms","id","plane"}. The path
 * loses its query and every secret token in it (logPath); no header is logged, so no credential,
 * claim token or cookie ever reaches the log. "plane" says who answered: "data" (this module:
 * drop hosts, the deploy-body routes, and refusals before Next) or "next". The id is also sent
 * back as X-Request-Id (any id the client sent is replaced).
 */
export function logRequest(req: PlaneRequest, res: ServerResponse): void {
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
    const plane = req.answered ? "data" : "next";
    const host = hostKind(req);
    // Straight to stdout, not console.log: Next wraps the console in every process it runs in
    // (its dimming and exit hooks, an async-context frame per call), which cost the serve path a
    // sixth of its CPU under load; the line written is the same.
    writeLine(
      JSON.stringify({
        msg: "request",
        method,
        host,
        path,
        status,
        ms,
        id,
        plane,
        ...(res.writableFinished ? {} : { aborted: true }),
      }) + "\n",
    );
  };
  res.once("finish", line);
  res.once("close", line);
}
