// rules: the same 10 KB page from a drop with the most site rules a drop may have and from the
// same drop without rules, in one server, alternating three times; and a redirect beside them.
import path from "node:path";
import { limits } from "../lib/plans";
import { deploy, dropHost, startBenchApp } from "./app";
import type { ServedSite } from "./site";
import { fmt, inRounds, list, measure, medianRound, times } from "./wrk";

const half = limits.free.redirectRules / 2;

/** The most rules a drop may have: redirects half under a literal first segment, half under a placeholder; header rules. */
function rules(): { _redirects: Uint8Array; _headers: Uint8Array } {
  const redirects = [
    ...Array.from({ length: half }, (_, i) => `/old/p${i} /new/p${i} 301`),
    ...Array.from({ length: half }, (_, i) => `/:lang/old${i} /:lang/new${i} 302`),
  ];
  const headers = [
    "/*\n  Cross-Origin-Opener-Policy: same-origin\n  Cross-Origin-Embedder-Policy: require-corp",
    ...Array.from(
      { length: limits.free.headerRules - 1 },
      (_, i) => `/s${i}/*\n  Cache-Control: public, max-age=${i + 60}`,
    ),
  ];
  const enc = new TextEncoder();
  return { _redirects: enc.encode(redirects.join("\n")), _headers: enc.encode(headers.join("\n")) };
}

export async function rulesSection(work: string, { page }: ServedSite): Promise<string[]> {
  const app = await startBenchApp(path.join(work, "data-rules"));
  try {
    const plainHost = dropHost(app, (await deploy(app, { "index.html": page })).slug);
    const ruledHost = dropHost(app, (await deploy(app, { "index.html": page, ...rules() })).slug);
    const probe = await app.request(ruledHost, `/old/p${half - 1}`);
    if (probe.status !== 301) throw new Error(`the rules drop does not redirect: ${probe.status}`);
    const rounds = await inRounds(3, {
      without: () => measure(app.port, plainHost, "/index.html"),
      withRules: () => measure(app.port, ruledHost, "/index.html"),
    });
    const { round, ratio, ratios } = medianRound(rounds, (r) => r.withRules.rps / r.without.rps);
    const redirect = await measure(app.port, ruledHost, `/old/p${half - 1}`);
    const placeholder = await measure(app.port, ruledHost, `/fr/old${half - 1}`);
    const rows = [
      "",
      `Site rules: ${limits.free.redirectRules} redirect rules (${half} under a literal first segment, ${half} under a placeholder) and ${limits.free.headerRules} header rules; three alternating pairs, the pair with the median ratio shown`,
      "",
      "| scenario | dropsite (built app) | ÷ the drop without rules |",
      "|---|---|---|",
      `| 10 KB page, drop without rules | ${fmt(round.without)} | 1.00× |`,
      `| 10 KB page, drop with the rules | ${fmt(round.withRules)} | ${times(ratio)} (pairs: ${list(ratios)}; target ≥ 0.90×) |`,
      `| 301 by the last literal rule | ${fmt(redirect)} | ${times(redirect.rps / round.without.rps)} |`,
      `| 302 by the last placeholder rule | ${fmt(placeholder)} | ${times(placeholder.rps / round.without.rps)} |`,
    ];
    console.error(rows.slice(-4).join("\n"));
    return rows;
  } finally {
    await app.stop();
  }
}
