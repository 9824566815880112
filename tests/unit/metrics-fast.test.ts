import { describe, expect, it } from "vitest";
import { AggregatorRegistry, Counter, Histogram, Registry, register, type PrometheusContentType } from "prom-client";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { DURATION_BUCKETS } from "@/lib/metrics/buckets";
import { boundCounter, collectCounts } from "@/lib/metrics/counts";
import { observeRequest } from "@/lib/metrics/http";
import { metrics } from "@/lib/metrics/registry";

// What every request records is counted as plain numbers per label set (lib/metrics/http.ts,
// lib/metrics/counts.ts) and written into prom-client's families when scraped. The scrape must
// be what prom-client itself would have written for the same observations: every bucket, sum
// and count, every status's count, alone and summed over workers by AggregatorRegistry. Parsed
// with the Prometheus text parser the integration tests use.

const COUNT = "dropsite_http_requests_total";
const DURATION = "dropsite_http_request_duration_seconds";

type Plane = "data" | "app";
interface Observation {
  plane: Plane;
  route: string;
  status: number;
  seconds: number;
}

/** prom-client's own families, as they were before the fast path: fed by its labelled calls. */
function reference() {
  const registry = new Registry();
  const count = new Counter({
    name: COUNT,
    help: "h",
    labelNames: ["plane", "route", "status"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: DURATION,
    help: "h",
    labelNames: ["plane", "route"] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  return {
    registry,
    observe({ plane, route, status, seconds }: Observation) {
      count.labels(plane, route, String(status)).inc();
      duration.labels(plane, route).observe(seconds);
    },
  };
}

/** Durations on, just past and between every bound, below the first and past the last. */
function durations(): number[] {
  const out = [0, 1e-7, 0.0004, 11, 600];
  for (const b of DURATION_BUCKETS) out.push(b, b * 1.000001, b * 0.7);
  return out;
}

/** A fixed, shuffled mix of planes, routes (the test's own), statuses and durations. */
function observations(prefix: string, n: number): Observation[] {
  const routes = [`${prefix}.a`, `${prefix}.b`, `${prefix}.c`];
  const statuses = [200, 200, 304, 404, 0, 503];
  const ds = durations();
  // mulberry32: a fixed sequence, so a failure repeats.
  let seed = 7;
  const next = (k: number) => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % k;
  };
  return Array.from({ length: n }, (_, i) => ({
    plane: next(3) === 0 ? "app" : "data",
    route: routes[next(routes.length)]!,
    status: statuses[next(statuses.length)]!,
    // Every other one exactly as listed (on a bound, say), the rest a little more.
    seconds: ds[i % ds.length]! * (i % 2 === 0 ? 1 : 1 + next(1000) / 1e6),
  }));
}

/** The scrape text's sample lines of the two families for the test's routes, in order. */
function lines(text: string, prefix: string): string[] {
  return text
    .split("\n")
    .filter((l) => (l.startsWith(COUNT) || l.startsWith(DURATION)) && l.includes(`route="${prefix}.`));
}

interface Parsed {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Every sample of the two families for the test's routes, parsed. The parser folds a labelled
 * histogram's series into one (it reads histograms without labels only), so the histogram's
 * HELP and TYPE lines are left out and its `_bucket`, `_sum` and `_count` lines are read as the
 * plain samples they are.
 */
function parsed(text: string, prefix: string): Parsed[] {
  const untyped = text
    .split("\n")
    .filter((l) => !l.startsWith(`# HELP ${DURATION} `) && !l.startsWith(`# TYPE ${DURATION} `))
    .join("\n");
  return parsePrometheusTextFormat(untyped)
    .filter((f) => f.name === COUNT || f.name.startsWith(`${DURATION}_`))
    .flatMap((f) => f.metrics.map((m) => ({ name: f.name, labels: m.labels ?? {}, value: Number(m.value) })))
    .filter((s) => s.labels.route?.startsWith(`${prefix}.`));
}

/** The two families' text, ended by a newline as a scrape is (the parser drops an unended last line). */
async function scrape(registry: Registry): Promise<string> {
  return `${await registry.getSingleMetricAsString(COUNT)}\n${await registry.getSingleMetricAsString(DURATION)}\n`;
}

/** The service's families (lib/metrics/registry.ts, on prom-client's default registry). */
function ours(): Promise<string> {
  metrics();
  return scrape(register);
}

describe("the request metrics' scrape is prom-client's own", () => {
  it("the same observations give the same buckets, sums, counts and status counts, line for line", async () => {
    const ref = reference();
    const seen = observations("unit1", 400);
    for (const o of seen) {
      observeRequest(o.plane, o.route, o.status, o.seconds);
      ref.observe(o);
    }
    const [a, b] = [await ours(), await scrape(ref.registry)];
    const got = parsed(a, "unit1");
    // Every series of both families is there: 3 routes × 2 planes × (13 bounds + Inf, sum, count).
    expect(got.filter((s) => s.name === `${DURATION}_count`)).toHaveLength(6);
    expect(got.filter((s) => s.name === `${DURATION}_bucket`)).toHaveLength(6 * (DURATION_BUCKETS.length + 1));
    expect(got.filter((s) => s.name === COUNT).reduce((n, s) => n + s.value, 0)).toBe(seen.length);
    expect(got).toEqual(parsed(b, "unit1"));
    expect(lines(a, "unit1")).toEqual(lines(b, "unit1"));
    // Buckets are cumulative: an observation on a bound is within it.
    const first = got.find((s) => s.labels.le === String(DURATION_BUCKETS[0]))!;
    const within = seen.filter(
      (o) => o.plane === first.labels.plane && o.route === first.labels.route && o.seconds <= DURATION_BUCKETS[0]!,
    );
    expect(first.value).toBe(within.length);
  });

  it("what is observed after a scrape counts once, at the next scrape", async () => {
    const ref = reference();
    const seen = observations("unit2", 120);
    for (const o of seen.slice(0, 50)) {
      observeRequest(o.plane, o.route, o.status, o.seconds);
      ref.observe(o);
    }
    expect(parsed(await ours(), "unit2")).toEqual(parsed(await scrape(ref.registry), "unit2"));
    await ours();
    for (const o of seen.slice(50)) {
      observeRequest(o.plane, o.route, o.status, o.seconds);
      ref.observe(o);
    }
    const after = parsed(await ours(), "unit2");
    expect(after.filter((s) => s.name === COUNT).reduce((n, s) => n + s.value, 0)).toBe(seen.length);
    expect(after).toEqual(parsed(await scrape(ref.registry), "unit2"));
  });

  it("two workers' figures add up as prom-client's AggregatorRegistry adds its own", async () => {
    const ref = reference();
    for (const o of observations("unit3", 200)) {
      observeRequest(o.plane, o.route, o.status, o.seconds);
      ref.observe(o);
    }
    // What a worker sends the primary (getMetricsAsJSON), from two workers with the same figures.
    metrics();
    const worker = await register.getMetricsAsJSON();
    const refWorker = await ref.registry.getMetricsAsJSON();
    const summed = AggregatorRegistry.aggregate<PrometheusContentType>([worker, worker]);
    const refSummed = AggregatorRegistry.aggregate<PrometheusContentType>([refWorker, refWorker]);
    const got = parsed(await scrape(summed), "unit3");
    expect(got.filter((s) => s.name === COUNT).reduce((n, s) => n + s.value, 0)).toBe(400);
    expect(got).toEqual(parsed(await scrape(refSummed), "unit3"));
  });
});

describe("a counter's bound children count as its labelled children would", () => {
  const name = "unit_cache_requests_total";
  const labelNames = ["cache", "result"] as const;
  const sets = [
    { cache: "manifest", result: "hit" },
    { cache: "manifest", result: "miss" },
    { cache: "content", result: "hit" },
  ];

  async function values(registry: Registry): Promise<Record<string, number>> {
    const family = parsePrometheusTextFormat(await registry.metrics()).find((f) => f.name === name)!;
    return Object.fromEntries(family.metrics.map((m) => [`${m.labels!.cache} ${m.labels!.result}`, Number(m.value)]));
  }

  it("every inc is counted once, across scrapes, beside incs made on the counter itself", async () => {
    const mine = new Registry();
    const counter = new Counter({
      name,
      help: "h",
      labelNames,
      registers: [mine],
      collect() {
        collectCounts(this);
      },
    });
    const theirs = new Registry();
    const ref = new Counter({ name, help: "h", labelNames, registers: [theirs] });
    // Two bound children of one label set, as two module copies would make (the data plane's, Next's).
    const bound = [...sets.map((l) => boundCounter(counter, l)), boundCounter(counter, sets[0]!)];
    const refs = [...sets.map((l) => ref.labels(l)), ref.labels(sets[0]!)];
    let sent = 0;
    const step = (from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const k = (i * 7) % bound.length;
        if (k === 2 && i % 3 === 0) continue;
        bound[k]!.inc();
        refs[k]!.inc();
        sent++;
      }
    };
    step(0, 40);
    expect(await values(mine)).toEqual(await values(theirs));
    await values(mine);
    step(40, 100);
    counter.inc(sets[1]!, 5);
    ref.inc(sets[1]!, 5);
    const after = await values(mine);
    expect(after).toEqual(await values(theirs));
    expect(Object.values(after).reduce((n, v) => n + v, 0)).toBe(sent + 5);
  });
});
