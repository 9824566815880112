import { collectDefaultMetrics, Counter, Gauge, Histogram, register } from "prom-client";
import { DURATION_BUCKETS } from "./buckets";
import { collectCounts } from "./counts";
import { collectRequestCounts, collectRequestDurations } from "./http";

// Every Prometheus family of the service, defined once (the names and labels are in
// docs/operating.md, "Metrics"). Label values are fixed sets chosen by the code: never a slug,
// path, host, address or anything else a request carries.
//
// The data plane's bundle and Next's server each load their own copy of this module, while
// prom-client itself is one package both load from node_modules (serverExternalPackages), so
// the families live on globalThis: the first copy registers them, the other uses the same ones.

/** Where a deploy came from: `deploys_total{via}`. */
export type DeployVia = "rest" | "zip" | "reference" | "append" | "dashboard" | "mcp";

/** The pool db_pool_connections reads, shared by the module's copies as the families are. */
const pools: { source?: () => PoolCounts } = ((globalThis as unknown as Record<symbol, typeof pools | undefined>)[
  Symbol.for("dropsite.metricsPool")
] ??= {});

function create() {
  collectDefaultMetrics();
  return {
    httpRequests: new Counter({
      name: "dropsite_http_requests_total",
      help: "Requests answered, by plane (data: drop hosts; app: the app host), route name and status code.",
      labelNames: ["plane", "route", "status"] as const,
      // Counted per request as plain numbers (./http.ts), written in here when read.
      collect() {
        collectRequestCounts(this);
      },
    }),
    httpDuration: new Histogram({
      name: "dropsite_http_request_duration_seconds",
      help: "Time from a request's arrival to its last byte written, by plane and route name.",
      labelNames: ["plane", "route"] as const,
      buckets: DURATION_BUCKETS,
      collect() {
        collectRequestDurations(this);
      },
    }),
    deploys: new Counter({
      name: "dropsite_deploys_total",
      help: "Deploys, by how they came (rest, zip, reference, append, dashboard, mcp) and outcome (ok, refused, error).",
      labelNames: ["via", "outcome"] as const,
    }),
    deployBytes: new Counter({
      name: "dropsite_deploy_bytes_total",
      help: "Bytes of the files deploys put in their versions.",
    }),
    storageDuration: new Histogram({
      name: "dropsite_storage_operation_duration_seconds",
      help: "Time of each call to the file store, by store kind and operation.",
      labelNames: ["store", "op"] as const,
      buckets: DURATION_BUCKETS,
    }),
    storageErrors: new Counter({
      name: "dropsite_storage_errors_total",
      help: "Calls to the file store that failed (other than an answer of the store's refusing the call), by store kind and operation.",
      labelNames: ["store", "op"] as const,
    }),
    cacheRequests: new Counter({
      name: "dropsite_cache_requests_total",
      help: "Look-ups of the serve path's caches (manifest, content), by result (hit, miss, revalidate).",
      labelNames: ["cache", "result"] as const,
      // Moved per request through bound children (./counts.ts), added in here when read.
      collect() {
        collectCounts(this);
      },
    }),
    rateLimited: new Counter({
      name: "dropsite_rate_limited_total",
      help: "Requests refused by a rate limit, by rule (lib/ratelimit/policy.ts).",
      labelNames: ["rule"] as const,
    }),
    webhookDeliveries: new Counter({
      name: "dropsite_webhook_deliveries_total",
      help: "Webhook delivery attempts, by outcome (ok; refused: the address rules; error: the receiver failed or did not answer).",
      labelNames: ["outcome"] as const,
    }),
    webhookPending: new Gauge({
      name: "dropsite_webhook_outbox_pending",
      help: "Webhook deliveries waiting to be attempted (shared state: one value, not a sum over workers).",
      aggregator: "max",
    }),
    scanFindings: new Counter({
      name: "dropsite_scan_findings_total",
      help: "Findings of the deploy scan, by rule and action taken.",
      labelNames: ["rule", "action"] as const,
    }),
    reports: new Counter({
      name: "dropsite_reports_total",
      help: "Abuse reports received, by reason.",
      labelNames: ["reason"] as const,
    }),
    renderChecks: new Counter({
      name: "dropsite_render_checks_total",
      help: "Render checks run in a browser, by outcome.",
      labelNames: ["outcome"] as const,
    }),
    dbPool: new Gauge({
      name: "dropsite_db_pool_connections",
      help: "Connections of the PostgreSQL pool, by state (idle, active, waiting: clients waiting for one).",
      labelNames: ["state"] as const,
      collect() {
        const pool = pools.source?.();
        if (!pool) return;
        this.set({ state: "idle" }, pool.idleCount);
        this.set({ state: "active" }, pool.totalCount - pool.idleCount);
        this.set({ state: "waiting" }, pool.waitingCount);
      },
    }),
  };
}

type Families = ReturnType<typeof create>;

const KEY = Symbol.for("dropsite.metrics");
const slot = globalThis as unknown as Record<symbol, Families | undefined>;

/** The service's metric families (created with prom-client's default ones on first use). */
export function metrics(): Families {
  return (slot[KEY] ??= create());
}

/** What db_pool_connections reads of a node-postgres (or Neon) pool. */
interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** The pool db_pool_connections reports (lib/db/client.ts, when it opens one). */
export function watchPool(pool: PoolCounts): void {
  pools.source = () => pool;
}

/** The registry of this process, for the scrape (./serve.ts). */
export { register };
