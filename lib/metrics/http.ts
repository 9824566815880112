import type { Counter, Histogram } from "prom-client";
import { DURATION_BUCKETS } from "./buckets";

// http_requests_total{plane,route,status} and http_request_duration_seconds{plane,route},
// recorded once per request by the listener (lib/plane/log.ts) when the answer is done.
//
// Every request pays for this, so recording is plain arithmetic on numbers kept per label set,
// found by two map look-ups on values the code chose (the route names are constants): no label
// object, string or hash per request. prom-client's labelled children validate and hash their
// labels on every call, which cost about 1 µs a request (docs/benchmarks.md, "Metrics"). The
// numbers are written into the prom-client families only when they are read (their `collect`,
// ./registry.ts), so the exposition, the cluster's sums (AggregatorRegistry asks each worker's
// families) and the names and labels stay prom-client's own.
//
// Like the families, the numbers live on globalThis: the data plane's bundle records, and the
// registry's collect may run in Next's copy of this module.

type Plane = "data" | "app";

/** One sample of http_requests_total: a (plane, route, status) and its count. */
interface StatusCount {
  readonly labels: { readonly plane: Plane; readonly route: string; readonly status: string };
  n: number;
}

/** One (plane, route): its series of the histogram, and its counts by status. */
interface Series {
  readonly labels: { readonly plane: Plane; readonly route: string };
  /** Observations per bucket, not cumulative (prom-client's form); one past the last bound counts only in `count`. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
  readonly statuses: Map<number, StatusCount>;
}

interface Recorded {
  readonly data: Map<string, Series>;
  readonly app: Map<string, Series>;
  /** Both in the order first seen, as prom-client would list them. */
  readonly series: Series[];
  readonly counts: StatusCount[];
}

const BOUNDS = Float64Array.from(DURATION_BUCKETS);
const LAST = BOUNDS.length;

const recorded: Recorded = ((globalThis as unknown as Record<symbol, Recorded | undefined>)[
  Symbol.for("dropsite.metricsRequests")
] ??= { data: new Map(), app: new Map(), series: [], counts: [] });

/** Counts one answered request: `http_requests_total` and `http_request_duration_seconds`. */
export function observeRequest(plane: Plane, route: string, status: number, seconds: number): void {
  const s = (plane === "data" ? recorded.data : recorded.app).get(route) ?? addSeries(plane, route);
  const c = s.statuses.get(status) ?? addStatus(s, status);
  c.n++;
  s.count++;
  s.sum += seconds;
  // The first bound the duration is within (prom-client's `le`); past the last, none.
  let i = 0;
  while (i < LAST && seconds > BOUNDS[i]!) i++;
  if (i < LAST) s.buckets[i]!++;
}

function addSeries(plane: Plane, route: string): Series {
  const s: Series = {
    labels: { plane, route },
    buckets: new Float64Array(LAST),
    sum: 0,
    count: 0,
    statuses: new Map(),
  };
  (plane === "data" ? recorded.data : recorded.app).set(route, s);
  recorded.series.push(s);
  return s;
}

function addStatus(s: Series, status: number): StatusCount {
  const c: StatusCount = { labels: { ...s.labels, status: String(status) }, n: 0 };
  s.statuses.set(status, c);
  recorded.counts.push(c);
  return c;
}

/** http_requests_total's `collect`: the counts so far, as the counter's samples. */
export function collectRequestCounts(counter: Counter<"plane" | "route" | "status">): void {
  counter.reset();
  for (const c of recorded.counts) counter.inc(c.labels, c.n);
}

/** The per-series record prom-client's Histogram keeps (its `hashMap`), which it exports when read. */
interface HistogramEntry {
  labels: Series["labels"];
  bucketValues: Record<number, number>;
  sum: number;
  count: number;
}

/**
 * http_request_duration_seconds' `collect`: the buckets, sum and count so far, as the
 * histogram's series. prom-client has no call that sets a histogram's buckets, so they are
 * written in the form its Histogram keeps (tests/unit/metrics-http.test.ts holds the result to
 * prom-client's own observe, so a change of that form fails there).
 */
export function collectRequestDurations(histogram: Histogram<"plane" | "route">): void {
  histogram.reset();
  const kept = (histogram as unknown as { hashMap: Record<string, HistogramEntry> }).hashMap;
  for (const s of recorded.series) {
    const bucketValues: Record<number, number> = {};
    for (let i = 0; i < LAST; i++) bucketValues[BOUNDS[i]!] = s.buckets[i]!;
    kept[`${s.labels.plane} ${s.labels.route}`] = { labels: s.labels, bucketValues, sum: s.sum, count: s.count };
  }
}
