import cluster from "node:cluster";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { timingSafeEqual } from "node:crypto";
import { AggregatorRegistry, type PrometheusContentType } from "prom-client";
import type { Env } from "../env";
import { log } from "../log";
import { metrics, register } from "./registry";

// The scrape: GET /metrics in Prometheus text. METRICS_PORT is a listener of its own (no token:
// bind it to loopback or a private network); METRICS_TOKEN serves the same text on the app host
// behind a bearer token (lib/plane/node.ts routes it). Under WEB_CONCURRENCY the cluster's
// primary asks every worker for its figures (prom-client's AggregatorRegistry) and adds them up,
// so one scrape covers all workers wherever it lands: a worker asked on the app host asks the
// primary, which owns the METRICS_PORT listener.

const ASK = "dropsite:metrics-ask";
const ANSWER = "dropsite:metrics-answer";
const ASK_TIMEOUT_MS = 5_000;

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

let aggregator: AggregatorRegistry<PrometheusContentType> | undefined;
const asked = new Map<number, (a: Answer) => void>();
let nextId = 0;

/** The scrape's content type (Prometheus text, version 0.0.4). */
export const METRICS_CONTENT_TYPE = register.contentType;

/** The Prometheus text of this process, or of every worker under a cluster. */
export async function scrapeText(): Promise<string> {
  if (cluster.isWorker && process.send) return askPrimary();
  if (cluster.isPrimary && aggregator && Object.keys(cluster.workers ?? {}).length > 0)
    return aggregator.clusterMetrics();
  metrics();
  return register.metrics();
}

function askPrimary(): Promise<string> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      asked.delete(id);
      reject(new Error("the cluster's primary did not answer the scrape"));
    }, ASK_TIMEOUT_MS);
    asked.set(id, (a) => {
      clearTimeout(timer);
      asked.delete(id);
      if (a.text !== undefined) resolve(a.text);
      else reject(new Error(a.error ?? "no metrics"));
    });
    process.send!({ type: ASK, id });
  });
}

/**
 * Sets the process up for scrapes (server.mjs calls it in every process it runs): a worker's
 * families are created and answer the primary's requests; the primary answers the workers'
 * scrapes with the sum of all of them, and starts the METRICS_PORT listener when there is one.
 * A single process (no cluster) starts the listener itself.
 */
export function startMetrics(e: Env): Server | undefined {
  metrics();
  if (cluster.isWorker) {
    // AggregatorRegistry's constructor installs the worker side of its protocol.
    aggregator ??= new AggregatorRegistry();
    process.on("message", (m: unknown) => {
      const a = m as Partial<Answer> | null;
      if (a?.type === ANSWER && typeof a.id === "number") asked.get(a.id)?.(a as Answer);
    });
    return undefined;
  }
  aggregator ??= new AggregatorRegistry();
  cluster.on("message", (worker, m: unknown) => {
    const q = m as { type?: unknown; id?: unknown } | null;
    if (q?.type !== ASK || typeof q.id !== "number") return;
    const id = q.id;
    scrapeText().then(
      (text) => worker.send({ type: ANSWER, id, text }),
      (err: unknown) => worker.send({ type: ANSWER, id, error: err instanceof Error ? err.message : String(err) }),
    );
  });
  if (e.METRICS_PORT === undefined) return undefined;
  const server = createServer((req, res) => void answerScrape(req, res));
  server.listen(e.METRICS_PORT, e.METRICS_HOST, () =>
    log("info", "metrics listening", { host: e.METRICS_HOST, port: e.METRICS_PORT }),
  );
  server.on("error", (err) => log("error", "metrics listener failed", { error: err.message }));
  return server;
}

/** GET /metrics on the METRICS_PORT listener; anything else 404. */
async function answerScrape(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? "/").split("?")[0];
  if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
    res.writeHead(404, { "content-type": "text/plain" }).end("Not found: GET /metrics\n");
    return;
  }
  await writeScrape(res, req.method === "HEAD");
}

/** Writes the scrape (or a 503 when the workers could not be asked). */
export async function writeScrape(res: ServerResponse, head = false): Promise<void> {
  try {
    const text = await scrapeText();
    res.writeHead(200, { "content-type": METRICS_CONTENT_TYPE, "cache-control": "no-store" });
    res.end(head ? undefined : text);
  } catch (err) {
    log("error", "metrics scrape failed", { error: err instanceof Error ? err.message : String(err) });
    if (!res.headersSent) res.writeHead(503, { "content-type": "text/plain" });
    res.end("metrics unavailable\n");
  }
}

/** Whether an Authorization header carries METRICS_TOKEN (compared in constant time). */
export function metricsTokenMatches(authorization: string | undefined, token: string): boolean {
  const m = /^Bearer (\S+)$/.exec(authorization ?? "");
  if (!m) return false;
  const a = Buffer.from(m[1]!);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
