// metrics: the same 10 KB page from two servers in one run, one with the Prometheus metrics on
// (METRICS_TOKEN set: every request counted in http_requests_total and its duration histogram)
// and one with them off (neither METRICS_PORT nor METRICS_TOKEN: nothing recorded per request),
// alternating three times; the target is ≥ 0.97× (issue 39).
import path from "node:path";
import { deploy, dropHost, startBenchApp } from "./app";
import type { ServedSite } from "./site";
import { fmt, inRounds, list, measure, medianRound, times } from "./wrk";

export async function metricsSection(work: string, { page }: ServedSite): Promise<string[]> {
  const off = await startBenchApp(path.join(work, "data-metrics-off"));
  const on = await startBenchApp(path.join(work, "data-metrics-on"), {
    METRICS_TOKEN: "bench-metrics-token-0123456789",
  });
  try {
    const [a, b] = await Promise.all([deploy(off, { "index.html": page }), deploy(on, { "index.html": page })]);
    const rounds = await inRounds(3, {
      off: () => measure(off.port, dropHost(off, a.slug), "/index.html"),
      on: () => measure(on.port, dropHost(on, b.slug), "/index.html"),
    });
    const { round, ratio, ratios } = medianRound(rounds, (r) => r.on.rps / r.off.rps);
    const rows = [
      "",
      "Metrics: the 10 KB page with the Prometheus metrics off and on (METRICS_TOKEN); three alternating pairs, the pair with the median ratio shown",
      "",
      "| scenario | dropsite (built app) | ÷ metrics off |",
      "|---|---|---|",
      `| 10 KB page, metrics off | ${fmt(round.off)} | 1.00× |`,
      `| 10 KB page, metrics on | ${fmt(round.on)} | ${times(ratio)} (pairs: ${list(ratios)}; target ≥ 0.97×) |`,
    ];
    console.error(rows.slice(-2).join("\n"));
    return rows;
  } finally {
    await Promise.all([off.stop(), on.stop()]);
  }
}
