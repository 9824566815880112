// metrics: the same 10 KB page from two servers in one run, one with the Prometheus metrics on
// (METRICS_TOKEN set: every request counted in http_requests_total and its duration histogram)
// and one with them off (neither METRICS_PORT nor METRICS_TOKEN: nothing recorded per request),
// compared as ./onoff does (seven alternating pairs, then five runs with both loaded at once);
// the median pair's ratio against the target of ≥ 0.97× (issue 39). Beside them, the recording
// alone in this process: the ns one request costs (lib/metrics/http.ts), against prom-client's
// labelled children doing the same.
import path from "node:path";
import { Counter, Histogram, Registry } from "prom-client";
import { DURATION_BUCKETS } from "../lib/metrics/buckets";
import { observeRequest } from "../lib/metrics/http";
import { deploy, dropHost, startBenchApp } from "./app";
import type { ServedSite } from "./site";
import { onOff } from "./onoff";
import { fmt, list, measure, median, times } from "./wrk";

export async function metricsSection(work: string, { page }: ServedSite): Promise<string[]> {
  const recording = recordingCost();
  const off = await startBenchApp(path.join(work, "data-metrics-off"));
  const on = await startBenchApp(path.join(work, "data-metrics-on"), {
    METRICS_TOKEN: "bench-metrics-token-0123456789",
  });
  try {
    const [a, b] = await Promise.all([deploy(off, { "index.html": page }), deploy(on, { "index.html": page })]);
    const { pairs, together: both } = await onOff(
      () => measure(off.port, dropHost(off, a.slug), "/index.html"),
      () => measure(on.port, dropHost(on, b.slug), "/index.html"),
    );
    const { round, ratio, ratios } = pairs;
    const rows = [
      "",
      "Metrics: the 10 KB page with the Prometheus metrics off and on (METRICS_TOKEN); seven alternating pairs, the pair with the median ratio shown; then both servers under load at once, five runs, the median run shown",
      "",
      "| scenario | dropsite (built app) | ÷ metrics off |",
      "|---|---|---|",
      `| 10 KB page, metrics off | ${fmt(round.off)} | 1.00× |`,
      `| 10 KB page, metrics on | ${fmt(round.on)} | ${times(ratio)} (pairs: ${list(ratios)}; target ≥ 0.97×) |`,
      `| both at once: metrics off | ${fmt(both.round.off)} | 1.00× |`,
      `| both at once: metrics on | ${fmt(both.round.on)} | ${times(both.ratio)} (runs: ${list(both.ratios)}) |`,
      "",
      `Recording one request in process (http_requests_total and the duration histogram, a mix of routes, statuses and durations): ${recording.fast.toFixed(0)} ns; prom-client's labelled children doing the same: ${recording.labelled.toFixed(0)} ns.`,
    ];
    console.error(rows.slice(-6).join("\n"));
    return rows;
  } finally {
    await Promise.all([off.stop(), on.stop()]);
  }
}

/**
 * ns per recorded request: observeRequest against what it replaced (a child of each family per
 * label set, prom-client's inc and observe), over the same precomputed mix, median of five runs.
 */
function recordingCost(): { fast: number; labelled: number } {
  const mix = requestMix();
  const registry = new Registry();
  const count = new Counter({
    name: "bench_requests_total",
    help: "h",
    labelNames: ["plane", "route", "status"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "bench_request_duration_seconds",
    help: "h",
    labelNames: ["plane", "route"] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const children = new Map<string, { count: { inc(): void }; duration: { observe(s: number): void } }>();
  const labelled = (plane: "data" | "app", route: string, status: number, seconds: number) => {
    const key = `${plane} ${route} ${status}`;
    let c = children.get(key);
    if (!c) {
      c = { count: count.labels(plane, route, String(status)), duration: duration.labels(plane, route) };
      children.set(key, c);
    }
    c.count.inc();
    c.duration.observe(seconds);
  };
  // The labelled children first: the loop's call site then sees observeRequest second, which
  // can only make its figure worse.
  const slow = nsPer(mix, labelled);
  return { fast: nsPer(mix, observeRequest), labelled: slow };
}

type Recorder = (plane: "data" | "app", route: string, status: number, seconds: number) => void;
interface Mix {
  plane: ("data" | "app")[];
  route: string[];
  status: number[];
  seconds: number[];
}

/** 4,096 requests: mostly drop pages (200, some 304 and 404), some app routes; durations around 2 ms. */
function requestMix(): Mix {
  const routes = [
    "serve.drop",
    "serve.drop",
    "serve.drop",
    "serve.drop",
    "serve.vanity",
    "drops.list",
    "deploy.json",
    "health",
  ];
  const statuses = [200, 200, 200, 200, 304, 404, 200, 201];
  const mix: Mix = { plane: [], route: [], status: [], seconds: [] };
  for (let i = 0; i < 4096; i++) {
    const k = Math.floor(Math.random() * routes.length);
    mix.plane.push(k < 5 ? "data" : "app");
    mix.route.push(routes[k]!);
    mix.status.push(statuses[Math.floor(Math.random() * statuses.length)]!);
    mix.seconds.push(-Math.log(1 - Math.random()) * 0.002);
  }
  return mix;
}

function nsPer(mix: Mix, record: Recorder): number {
  const N = 1_000_000;
  const run = (n: number) => {
    for (let i = 0; i < n; i++) {
      const j = i & 4095;
      record(mix.plane[j]!, mix.route[j]!, mix.status[j]!, mix.seconds[j]!);
    }
  };
  run(100_000);
  const runs: number[] = [];
  for (let k = 0; k < 5; k++) {
    const started = process.hrtime.bigint();
    run(N);
    runs.push(Number(process.hrtime.bigint() - started) / N);
  }
  return median(runs);
}
