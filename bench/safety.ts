// safety (issue 38): what the deploy scan costs a 900-file deploy, and what the disabled check
// costs the serve path.
//  - Scan: a 900-file zip (300 HTML pages with links, a form and scripts, 300 scripts, 300
//    binary images) deployed to two servers, one with SCAN=off and one scanning (the default),
//    alternating; each deploy has contents of its own (nothing remembered or deduplicated) and a
//    fresh account. The cost is (scan − off) ÷ scan per pair; the target is < 10%.
//  - Disabled: a disabled drop's state is a field of the cached manifest, read on every request
//    whether the drop is disabled or not; the same 10 KB page of a live drop is measured beside a
//    disabled drop's 451 answer on one server, and against the serve section's figure of the run.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { zipSync, type Zippable } from "fflate";
import { accountWithKey } from "../tests/support/accounts";
import { createContext } from "../lib/context";
import { parseEnv } from "../lib/env";
import { brandList, DEFAULT_BRANDS, scanFile } from "../lib/scan/rules";
import { grantAdmin } from "../lib/db/safety";
import { appHost, deploy, dropHost, makeAccounts, startBenchApp, timedPost } from "./app";
import { prose, type ServedSite } from "./site";
import { fmt, inRounds, list, measure, median, medianRound, times } from "./wrk";

const RUNS = Number(process.env.BENCH_SCAN_RUNS ?? "5");

/** 900 files of a site that looks like one: pages that link, post a form and load scripts. */
function siteFiles(seed: number): Zippable {
  const tree: Zippable = {};
  const text = (n: number) => new TextDecoder().decode(prose(n, seed * 1000 + n));
  for (let i = 0; i < 300; i++) {
    tree[`site/p${i}/index.html`] = new TextEncoder().encode(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page ${i} ${seed}</title>` +
        `<link rel="stylesheet" href="/s.css"><script src="/js/a${i}.js" defer></script></head><body>` +
        `<nav><a href="/">Home</a> <a href="/p${(i + 1) % 300}/">Next</a> <a href="https://example.org/ref/${i}">Source</a></nav>` +
        `<main><h1>Page ${i}</h1><p>${text(6000)}</p>` +
        `<form action="/search" method="get"><label>Search <input name="q"></label><button>Go</button></form>` +
        `<img src="/img/i${i}.png" alt=""></main></body></html>`,
    );
    tree[`site/js/a${i}.js`] = new TextEncoder().encode(
      `document.addEventListener("DOMContentLoaded", () => { const el = document.querySelector("h1"); ` +
        `if (el) el.title = ${JSON.stringify(text(200))}; });\n// ${text(6000)}\n`,
    );
    tree[`site/img/i${i}.png`] = [new Uint8Array(randomBytes(24 * 1024)), { level: 0 }];
  }
  return tree;
}

const siteTree = (seed: number) => zipSync(siteFiles(seed));

/** The scan alone, in this process: every file of the tree through scanFile, as a deploy scans it. */
function scanTime(seed: number): number {
  const files = Object.entries(siteFiles(seed)).map(
    ([p, v]) => [p, v instanceof Uint8Array ? v : (v as unknown as [Uint8Array])[0]] as const,
  );
  const opts = { ownHosts: new Set<string>(), brands: brandList(DEFAULT_BRANDS) };
  const t0 = performance.now();
  for (const [p, bytes] of files) scanFile(p.slice("site/".length), bytes, opts);
  return performance.now() - t0;
}

async function scanRows(work: string): Promise<string[]> {
  const dirs = { off: path.join(work, "data-scan-off"), on: path.join(work, "data-scan-on") };
  const keys = { off: await makeAccounts(dirs.off, RUNS + 1), on: await makeAccounts(dirs.on, RUNS + 1) };
  const off = await startBenchApp(dirs.off, { SCAN: "off" });
  const on = await startBenchApp(dirs.on);
  try {
    const post = async (app: typeof on, key: string, seed: number) => {
      const res = await timedPost(app.port, "/deploy", siteTree(seed), {
        "content-type": "application/zip",
        authorization: `Bearer ${key}`,
      });
      if (res.status !== 200) throw new Error(`deploy failed: ${res.status} ${res.text}`);
      return res.ms;
    };
    // A first deploy each: the code paths (and the scanner's parser) loaded before the measured ones.
    await post(off, keys.off[RUNS]!, 9001);
    await post(on, keys.on[RUNS]!, 9002);
    const pairs: { off: number; on: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const pair = { off: await post(off, keys.off[i]!, 2 * i + 1), on: await post(on, keys.on[i]!, 2 * i + 2) };
      console.error(`scan pair ${i}: off ${pair.off.toFixed(0)} ms, scanning ${pair.on.toFixed(0)} ms`);
      pairs.push(pair);
    }
    const costs = pairs.map((p) => (p.on - p.off) / p.on);
    scanTime(9003);
    const alone = Array.from({ length: RUNS }, (_, i) => scanTime(100 + i));
    const onMedian = median(pairs.map((p) => p.on));
    return [
      "",
      `Deploy scan: a 900-file zip (300 HTML pages, 300 scripts, 300 images; about ${(siteTree(0).byteLength / 1024 / 1024).toFixed(1)} MB), new contents and a fresh pro account per deploy, to a server with SCAN=off and one scanning (the default), ${RUNS} alternating pairs; medians`,
      "",
      "| measurement | result | target |",
      "|---|---|---|",
      `| deploy, SCAN=off | ${median(pairs.map((p) => p.off)).toFixed(0)} ms (${list(
        pairs.map((p) => p.off),
        0,
      )}) | |`,
      `| deploy, scanning | ${median(pairs.map((p) => p.on)).toFixed(0)} ms (${list(
        pairs.map((p) => p.on),
        0,
      )}) | |`,
      `| the scan's share of the deploy, per pair | ${(median(costs) * 100).toFixed(1)}% (${costs
        .map((c) => `${(c * 100).toFixed(1)}%`)
        .join(", ")}) | < 10% |`,
      `| the scan alone (scanFile over the 900 files in one process, ${RUNS} runs) | ${median(alone).toFixed(0)} ms (${list(alone, 0)}) = ${((median(alone) / onMedian) * 100).toFixed(1)}% of the scanning deploy's median | < 10% |`,
    ];
  } finally {
    await Promise.all([off.stop(), on.stop()]);
  }
}

async function disabledRows(work: string, page: Uint8Array): Promise<string[]> {
  const dataDir = path.join(work, "data-disabled");
  const ctx = await createContext(
    parseEnv({ DATA_DIR: dataDir, BASE_URL: "http://localhost:3000", SERVE_DOMAIN: "localhost:3000" }),
  );
  const operator = await accountWithKey(ctx, "pro");
  await grantAdmin(ctx.db, operator.account.id, { id: "cli" }, new Date()).finally(() => ctx.dbHandle.close());
  const app = await startBenchApp(dataDir);
  try {
    const [live, gone] = [await deploy(app, { "index.html": page }), await deploy(app, { "index.html": page })];
    const res = await app.request(appHost(app), `/admin/drops/${gone.slug}/disable`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${operator.apiKey}` },
      body: JSON.stringify({ reason: "phishing", note: "bench" }),
    });
    if (res.status !== 200) throw new Error(`disable failed: ${res.status} ${res.text}`);
    const rounds = await inRounds(3, {
      live: () => measure(app.port, dropHost(app, live.slug), "/index.html"),
      disabled: () => measure(app.port, dropHost(app, gone.slug), "/index.html"),
    });
    const { round, ratio, ratios } = medianRound(rounds, (r) => r.disabled.rps / r.live.rps);
    return [
      "",
      "Disabled drops: one server, a live drop's 10 KB page beside a disabled drop's 451 answer (no storage read; wrk counts every 451 as a non-2xx answer); three alternating pairs, the median shown. The live page's check is one field of the cached manifest: compare its figure with the serve section's 10 KB page of the same run",
      "",
      "| scenario | dropsite (built app) | ÷ live |",
      "|---|---|---|",
      `| 10 KB page of a live drop | ${fmt(round.live)} | 1.00× |`,
      `| the same request to a disabled drop (451) | ${fmt(round.disabled)} | ${times(ratio)} (pairs: ${list(ratios)}) |`,
    ];
  } finally {
    await app.stop();
  }
}

export async function safetySection(work: string, { page }: ServedSite): Promise<string[]> {
  return [...(await scanRows(work)), ...(await disabledRows(work, page))];
}
