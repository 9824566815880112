// stats: the same 10 KB page from two servers in one run, one counting views (the default:
// every answer tallied in memory and flushed every 10 s) and one with STATS=0, compared as
// ./onoff does (seven alternating pairs, then five runs with both loaded at once); the median
// pair's ratio against the target of ≥ 0.95× (issue 40).
import path from "node:path";
import { deploy, dropHost, startBenchApp } from "./app";
import type { ServedSite } from "./site";
import { onOff } from "./onoff";
import { fmt, list, measure, times } from "./wrk";

// A browser's user agent: wrk's own would be counted as a bot, a cheaper path than a view's.
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

export async function statsSection(work: string, { page }: ServedSite): Promise<string[]> {
  const off = await startBenchApp(path.join(work, "data-stats-off"), { STATS: "0" });
  const on = await startBenchApp(path.join(work, "data-stats-on"));
  try {
    const [a, b] = await Promise.all([deploy(off, { "index.html": page }), deploy(on, { "index.html": page })]);
    const headers = { "user-agent": BROWSER, referer: "https://news.example/item?id=1" };
    const { pairs, together: both } = await onOff(
      () => measure(off.port, dropHost(off, a.slug), "/index.html", headers),
      () => measure(on.port, dropHost(on, b.slug), "/index.html", headers),
    );
    const { round, ratio, ratios } = pairs;
    const rows = [
      "",
      "Counts: the 10 KB page with view counting off (STATS=0) and on (the default), a browser's user agent and a referrer on every request (each one a view); seven alternating pairs, the pair with the median ratio shown; then both servers under load at once, five runs, the median run shown",
      "",
      "| scenario | dropsite (built app) | ÷ counting off |",
      "|---|---|---|",
      `| 10 KB page, counting off | ${fmt(round.off)} | 1.00× |`,
      `| 10 KB page, counting on | ${fmt(round.on)} | ${times(ratio)} (pairs: ${list(ratios)}; target ≥ 0.95×) |`,
      `| both at once: counting off | ${fmt(both.round.off)} | 1.00× |`,
      `| both at once: counting on | ${fmt(both.round.on)} | ${times(both.ratio)} (runs: ${list(both.ratios)}) |`,
    ];
    console.error(rows.slice(-4).join("\n"));
    return rows;
  } finally {
    await Promise.all([off.stop(), on.stop()]);
  }
}
