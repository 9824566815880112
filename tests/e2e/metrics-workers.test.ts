import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { freePort, requestAt, startApp, type RunningApp } from "../support/app-server";
import { startPgServer, type PgServer } from "../support/pg-server";

// `npm start` with two workers (WEB_CONCURRENCY=2, on PostgreSQL): one scrape covers both, on
// the METRICS_PORT listener (the primary's, no token) and on the app host behind METRICS_TOKEN
// (a worker asks the primary), parsed by a Prometheus text-format parser.

const TOKEN = "workers-metrics-token-0123456789";

let pg: PgServer;
let app: RunningApp;
let dataDir: string;
let metricsPort: number;

beforeAll(async () => {
  pg = await startPgServer();
  dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-metrics-"));
  metricsPort = await freePort();
  app = await startApp(
    { DATABASE_URL: pg.url, METRICS_PORT: String(metricsPort), METRICS_TOKEN: TOKEN },
    { dataDir, workers: 2 },
  );
}, 180_000);
afterAll(async () => {
  await app?.stop();
  await pg?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

/** dropsite_http_requests_total of GET /healthz answered 200, summed by the scrape. */
function healthCount(text: string): number {
  const family = parsePrometheusTextFormat(text).find((f) => f.name === "dropsite_http_requests_total");
  const sample = family?.metrics.find((m) => m.labels?.route === "health" && m.labels.status === "200");
  return sample ? Number(sample.value) : 0;
}

const scrapePort = () => requestAt(metricsPort, `127.0.0.1:${metricsPort}`, "/metrics");
const scrapeApp = () =>
  app.request(`localhost:${app.port}`, "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });

describe("one scrape covers every worker", () => {
  it("N requests spread over both workers count N, on METRICS_PORT and on the app host alike", async () => {
    const before = await scrapePort();
    expect(before.status).toBe(200);
    const N = 24;
    // A connection each: the cluster hands each new connection to the next worker.
    for (let i = 0; i < N; i++) {
      const res = await app.request(`localhost:${app.port}`, "/healthz", { headers: { connection: "close" } });
      expect(res.status).toBe(200);
    }
    const viaPort = await scrapePort();
    expect(healthCount(viaPort.text) - healthCount(before.text)).toBe(N);
    const viaApp = await scrapeApp();
    expect(viaApp.status).toBe(200);
    expect(healthCount(viaApp.text) - healthCount(before.text)).toBe(N);
    // Both workers' process figures are in it (prom-client sums them: two processes' heaps).
    const workers = parsePrometheusTextFormat(viaPort.text).find((f) => f.name === "nodejs_version_info");
    expect(workers?.metrics.length).toBeGreaterThanOrEqual(1);
  });

  it("the METRICS_PORT listener answers only GET /metrics; the app host's route needs the token", async () => {
    expect((await requestAt(metricsPort, `127.0.0.1:${metricsPort}`, "/")).status).toBe(404);
    expect((await app.request(`localhost:${app.port}`, "/metrics")).status).toBe(401);
  });
});
