import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import parsePrometheusTextFormat, { type Family } from "parse-prometheus-text-format";
import { dispatch, listenerOptions, logRequest } from "@/lib/plane/node";
import { appRouteName } from "@/lib/plane/route-names";
import { freshLimiter, makeTestContext, TEST_SERVE_DOMAIN, type TestContext } from "../support/context";
import { requestAt, type HttpResult } from "../support/app-server";
import { freePort } from "../support/net";

// The Prometheus metrics of the self-hosted listener, scraped as Prometheus does and parsed by a
// Prometheus text-format parser: the counters move by exactly the traffic sent, the scrape is
// behind METRICS_TOKEN on the app host, and no label value ever comes from a request.

const TOKEN = "metrics-token-0123456789abcdef";
const APP = "localhost:3000";

let t: TestContext;
let server: Server;
let port: number;

beforeAll(async () => {
  t = await makeTestContext({ METRICS_TOKEN: TOKEN, RATE_LIMIT_DEPLOYS_PER_MINUTE: "3" });
  // As server.mjs runs it: the request log and metrics first, then the data plane; what the
  // data plane does not take answers 404 here instead of going to Next.
  server = createServer(listenerOptions, (req, res) => {
    logRequest(req, res);
    if (!dispatch(req, res)) res.writeHead(404).end();
  });
  port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await t.close();
});

const get = (host: string, path: string, headers: Record<string, string> = {}) =>
  requestAt(port, host, path, { headers });

async function scrapeText(): Promise<string> {
  const res = await get(APP, "/metrics", { authorization: `Bearer ${TOKEN}` });
  expect(res.status).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

async function scrape(): Promise<Family[]> {
  return parsePrometheusTextFormat(await scrapeText());
}

/**
 * A histogram's count for one plane and route. Read from its `_count` line: the parser keeps
 * no labels of histogram samples (prom-client writes `le` first).
 */
function histogramCount(text: string, name: string, labels: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}_count{${labels}}`));
  return line ? Number(line.split(" ").pop()) : 0;
}

/** The value of one sample (0 when absent): the family's sample whose labels include `labels`. */
function value(families: Family[], name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  if (!family) throw new Error(`no family ${name} in the scrape`);
  const sample = family.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample ? Number(sample.value ?? sample.count) : 0;
}

async function deployHtml(html: string): Promise<HttpResult> {
  return requestAt(port, APP, "/deploy", {
    method: "POST",
    headers: { "content-type": "text/html", "content-length": String(Buffer.byteLength(html)) },
    body: html,
  });
}

describe("the scrape on the app host", () => {
  it("answers only to METRICS_TOKEN as a bearer (401 otherwise), in the Prometheus text format", async () => {
    expect((await get(APP, "/metrics")).status).toBe(401);
    const wrong = await get(APP, "/metrics", { authorization: `Bearer ${TOKEN.slice(0, -1)}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.json()).toMatchObject({ code: "auth_required", request_id: wrong.headers["x-request-id"] });
    const families = await scrape();
    const names = families.map((f) => f.name);
    for (const name of [
      "dropsite_http_requests_total",
      "dropsite_http_request_duration_seconds",
      "dropsite_deploys_total",
      "dropsite_deploy_bytes_total",
      "dropsite_storage_operation_duration_seconds",
      "dropsite_storage_errors_total",
      "dropsite_cache_requests_total",
      "dropsite_rate_limited_total",
      "dropsite_webhook_deliveries_total",
      "dropsite_webhook_outbox_pending",
      "dropsite_scan_findings_total",
      "dropsite_reports_total",
      "dropsite_render_checks_total",
      "dropsite_db_pool_connections",
      // prom-client's default metrics, under their standard names.
      "process_cpu_user_seconds_total",
      "nodejs_heap_size_used_bytes",
    ])
      expect(names).toContain(name);
  });

  it("the scrape itself is not counted", async () => {
    const before = await scrape();
    await scrape();
    await scrape();
    const after = await scrape();
    const scrapes = (f: Family[]) =>
      f
        .find((x) => x.name === "dropsite_http_requests_total")!
        .metrics.filter((m) => m.labels?.route === "other" || m.labels?.route === "metrics")
        .reduce((n, m) => n + Number(m.value), 0);
    expect(scrapes(after)).toBe(scrapes(before));
  });
});

describe("counters move by exactly the traffic sent", () => {
  it("a deploy counts once as rest/ok with its bytes, and N views of its drop count N serve.drop 200s", async () => {
    const html = "<!doctype html><title>counted</title><p>counted</p>";
    const beforeText = await scrapeText();
    const before = parsePrometheusTextFormat(beforeText);
    const deployed = await deployHtml(html);
    expect(deployed.status).toBe(200);
    const { slug } = deployed.json() as { slug: string };
    const N = 7;
    for (let i = 0; i < N; i++) expect((await get(`${slug}.${TEST_SERVE_DOMAIN}`, "/")).status).toBe(200);
    expect((await get(`${slug}.${TEST_SERVE_DOMAIN}`, "/missing.css")).status).toBe(404);
    const afterText = await scrapeText();
    const after = parsePrometheusTextFormat(afterText);
    const delta = (name: string, labels: Record<string, string> = {}) =>
      value(after, name, labels) - value(before, name, labels);
    expect(delta("dropsite_deploys_total", { via: "rest", outcome: "ok" })).toBe(1);
    expect(delta("dropsite_deploy_bytes_total")).toBe(Buffer.byteLength(html));
    expect(delta("dropsite_http_requests_total", { plane: "data", route: "deploy.html", status: "200" })).toBe(1);
    expect(delta("dropsite_http_requests_total", { plane: "data", route: "serve.drop", status: "200" })).toBe(N);
    expect(delta("dropsite_http_requests_total", { plane: "data", route: "serve.drop", status: "404" })).toBe(1);
    const histogram = (name: string, labels: string) =>
      histogramCount(afterText, name, labels) - histogramCount(beforeText, name, labels);
    expect(histogram("dropsite_http_request_duration_seconds", 'plane="data",route="serve.drop"')).toBe(N + 1);
    // The first view loads the manifest; the rest find it in memory (within the revalidation window).
    expect(delta("dropsite_cache_requests_total", { cache: "manifest", result: "miss" })).toBe(1);
    expect(
      delta("dropsite_cache_requests_total", { cache: "manifest", result: "hit" }) +
        delta("dropsite_cache_requests_total", { cache: "manifest", result: "revalidate" }),
    ).toBe(N);
    // The deploy stored its file through the storage guard, which timed the put.
    expect(histogram("dropsite_storage_operation_duration_seconds", 'store="fs",op="put"')).toBeGreaterThanOrEqual(1);
  });

  it("a rate-limited deploy counts under its rule and as refused", async () => {
    const before = await scrape();
    const statuses: number[] = [];
    for (let i = 0; i < 5 && !statuses.includes(429); i++) statuses.push((await deployHtml(`<p>${i}</p>`)).status);
    expect(statuses.at(-1)).toBe(429);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      value(after, name, labels) - value(before, name, labels);
    expect(delta("dropsite_rate_limited_total", { rule: "deploy" })).toBe(1);
    expect(delta("dropsite_deploys_total", { via: "rest", outcome: "ok" })).toBe(statuses.length - 1);
    expect(delta("dropsite_deploys_total", { via: "rest", outcome: "refused" })).toBe(1);
    expect(delta("dropsite_http_requests_total", { plane: "data", route: "deploy.html", status: "429" })).toBe(1);
    await freshLimiter(t);
  });

  it("a refused deploy counts as refused", async () => {
    const before = await scrape();
    const bad = await requestAt(port, APP, "/deploy?ttl=forever", {
      method: "POST",
      headers: { "content-type": "text/html", "content-length": "3" },
      body: "<p>",
    });
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ code: "invalid_ttl", request_id: bad.headers["x-request-id"] });
    const after = await scrape();
    expect(
      value(after, "dropsite_deploys_total", { via: "rest", outcome: "refused" }) -
        value(before, "dropsite_deploys_total", { via: "rest", outcome: "refused" }),
    ).toBe(1);
    expect(
      value(after, "dropsite_http_requests_total", { plane: "data", route: "deploy.html", status: "400" }) -
        value(before, "dropsite_http_requests_total", { plane: "data", route: "deploy.html", status: "400" }),
    ).toBe(1);
  });
});

describe("no label value comes from a request", () => {
  it("slugs, paths, hosts, query strings and headers sent never appear in the scrape", async () => {
    const marker = `zz${Date.now().toString(36)}q`;
    await get(`${marker}.${TEST_SERVE_DOMAIN}`, `/${marker}/x?${marker}=1`);
    await get(`${marker}-x.${marker}.${TEST_SERVE_DOMAIN}`, "/");
    await get(`${marker}.example.net`, `/${marker}`);
    await get(APP, `/drops/${marker}`, { "x-request-id": marker, "user-agent": marker });
    await get(APP, `/${marker}/${marker}`);
    await requestAt(port, APP, `/deploy/${marker}`, { method: "PUT", headers: { "content-length": "0" } });
    const res = await get(APP, "/metrics", { authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(marker);
    // Every route label is a name of the fixed set.
    const routes = new Set(
      parsePrometheusTextFormat(res.text)
        .find((f) => f.name === "dropsite_http_requests_total")!
        .metrics.map((m) => m.labels!.route!),
    );
    for (const r of routes) expect(r).toMatch(/^(serve\.[a-z_]+|[a-z_]+(\.[a-z_]+)?)$/);
  });

  it("route names are the table's, whatever the parameters", () => {
    expect(appRouteName("GET", "/drops")).toBe("drops.list");
    expect(appRouteName("GET", "/drops/abc123")).toBe("drops.get");
    expect(appRouteName("DELETE", "/drops/abc123")).toBe("drops.delete");
    expect(appRouteName("POST", "/deploy", "application/json")).toBe("deploy.json");
    expect(appRouteName("POST", "/deploy", "application/zip")).toBe("deploy.zip");
    expect(appRouteName("PUT", "/deploy/uploads/ut_x/abc")).toBe("deploy.upload");
    expect(appRouteName("POST", "/deploy/preflight")).toBe("deploy.preflight");
    expect(appRouteName("POST", "/deploy/my-drop")).toBe("deploy.append");
    expect(appRouteName("GET", "/dashboard/drops/abc")).toBe("dashboard");
    expect(appRouteName("GET", "/_next/static/chunks/x.js")).toBe("next.static");
    expect(appRouteName("GET", "/drops//versions")).toBe("other");
    expect(appRouteName("GET", "/anything/else")).toBe("other");
  });
});

describe("request ids", () => {
  it("every answer carries the service's own X-Request-Id, and the data plane's error envelopes carry it as request_id", async () => {
    const sent = "client-chosen-id";
    const res = await get(APP, "/metrics", { "x-request-id": sent });
    const id = res.headers["x-request-id"];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(id).not.toBe(sent);
    expect(res.json()).toMatchObject({ code: "auth_required", request_id: id });
    const drop = await get(`nosuchdrop.${TEST_SERVE_DOMAIN}`, "/");
    expect(drop.status).toBe(404);
    expect(drop.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});
