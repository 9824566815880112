// previews (issue 55): one drop's 10 KB page on its live host, on a version's preview host
// (`<slug>---v1`) and on an alias's (`<slug>---staging`, naming version 1), in one server,
// alternating three times; a preview costs its own manifest (per drop and version or alias)
// and a noindex header, nothing per request beyond the live host's work. Beside req/s, the
// server's CPU time per request (/proc, user and system): on a machine other work loads, req/s
// swings with what the others do, while the CPU a request costs the server moves far less.
import path from "node:path";
import type { RunningApp } from "../tests/support/app-server";
import { appHost, cpuTimes, deploy, dropHost, makeAccounts, startBenchApp } from "./app";
import { page10k, type ServedSite } from "./site";
import { DURATION, fmt, inRounds, list, median, medianRound, times, wrk, type WrkResult } from "./wrk";

/** Rounds (BENCH_PREVIEWS_ROUNDS): more, shorter rounds (BENCH_SECONDS) steady the median on a loaded machine. */
const ROUNDS = Number(process.env.BENCH_PREVIEWS_ROUNDS ?? 3);

/** The host of one version or alias of a drop. */
const previewHost = (app: RunningApp, slug: string, selector: string) => `${slug}---${selector}.${app.serveDomain}`;

async function pointAlias(app: RunningApp, key: string, slug: string, name: string, version: number): Promise<void> {
  const res = await app.request(appHost(app), `/drops/${slug}/aliases/${name}`, {
    method: "PUT",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ version }),
  });
  if (res.status !== 200) throw new Error(`alias failed: ${res.status} ${res.text}`);
}

/** A 1 s warm-up, then the measured run, with the server's CPU time per request of that run (µs). */
async function measured(app: RunningApp, host: string): Promise<WrkResult & { cpuUs: number }> {
  await wrk(app.port, host, "/index.html", {}, "1");
  const before = cpuTimes(app.proc.pid!).all;
  const r = await wrk(app.port, host, "/index.html", {}, DURATION);
  return { ...r, cpuUs: ((cpuTimes(app.proc.pid!).all - before) * 1000) / r.requests };
}

export async function previewsSection(work: string, _site: ServedSite): Promise<string[]> {
  const dataDir = path.join(work, "data-previews");
  const [key] = await makeAccounts(dataDir, 1, {}, "pro");
  const app = await startBenchApp(dataDir);
  try {
    // Two versions of the same size: version 1 on the preview hosts, version 2 live.
    const { slug } = await deploy(app, { "index.html": page10k("version 1") }, { key, name: "previewed" });
    await deploy(app, { "index.html": page10k("version 2") }, { key, name: "previewed" });
    await pointAlias(app, key!, slug, "staging", 1);
    const hosts = {
      live: dropHost(app, slug),
      version: previewHost(app, slug, "v1"),
      alias: previewHost(app, slug, "staging"),
    };
    for (const [what, host] of Object.entries(hosts)) {
      const probe = await app.request(host, "/index.html");
      const want = what === "live" ? "version 2" : "version 1";
      if (probe.status !== 200 || !probe.text.includes(`<title>${want}</title>`))
        throw new Error(`${host} does not serve ${want}: ${probe.status}`);
    }
    const rounds = await inRounds(ROUNDS, {
      live: () => measured(app, hosts.live),
      version: () => measured(app, hosts.version),
      alias: () => measured(app, hosts.alias),
    });
    const version = medianRound(rounds, (r) => r.version.rps / r.live.rps);
    const alias = medianRound(rounds, (r) => r.alias.rps / r.live.rps);
    // CPU per request, the median of each side's rounds, and the median of the rounds' ratios.
    const cpu = (side: "live" | "version" | "alias") => median(rounds.map((r) => r[side].cpuUs));
    const cpuRatios = (side: "version" | "alias") => rounds.map((r) => r.live.cpuUs / r[side].cpuUs);
    const us = (x: number) => `${x.toFixed(0)} µs`;
    const rows = [
      "",
      `Previews: one drop's 10 KB page on its live host, on a version's preview host (\`<slug>---v1\`) and on an alias's (\`<slug>---staging\`); ${ROUNDS} alternating rounds, each preview shown with the round of its median ratio to the live host`,
      "",
      "| scenario | dropsite (built app) | ÷ the live host (same round) | server CPU per request (median) | live's CPU ÷ this one's (median of rounds) |",
      "|---|---|---|---|---|",
      `| 10 KB page, live host | ${fmt(version.round.live)} | 1.00× | ${us(cpu("live"))} | 1.00× |`,
      `| 10 KB page, version preview host | ${fmt(version.round.version)} | ${times(version.ratio)} (rounds: ${list(version.ratios)}; target ≥ 0.95×) | ${us(cpu("version"))} | ${times(median(cpuRatios("version")))} (rounds: ${list(cpuRatios("version"))}) |`,
      `| 10 KB page, alias preview host | ${fmt(alias.round.alias)} | ${times(alias.ratio)} (rounds: ${list(alias.ratios)}; target ≥ 0.95×) | ${us(cpu("alias"))} | ${times(median(cpuRatios("alias")))} (rounds: ${list(cpuRatios("alias"))}) |`,
    ];
    console.error(rows.slice(-3).join("\n"));
    return rows;
  } finally {
    await app.stop();
  }
}
