// previews (issue 55): one drop's 10 KB page on its live host, on a version's preview host
// (`<slug>---v1`) and on an alias's (`<slug>---staging`, naming version 1), in one server,
// alternating three times; a preview costs its own manifest (per drop and version or alias)
// and a noindex header, nothing per request beyond the live host's work.
import path from "node:path";
import type { RunningApp } from "../tests/support/app-server";
import { appHost, deploy, dropHost, makeAccounts, startBenchApp } from "./app";
import { page10k, type ServedSite } from "./site";
import { fmt, inRounds, list, measure, medianRound, times } from "./wrk";

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
    const rounds = await inRounds(3, {
      live: () => measure(app.port, hosts.live, "/index.html"),
      version: () => measure(app.port, hosts.version, "/index.html"),
      alias: () => measure(app.port, hosts.alias, "/index.html"),
    });
    const version = medianRound(rounds, (r) => r.version.rps / r.live.rps);
    const alias = medianRound(rounds, (r) => r.alias.rps / r.live.rps);
    const rows = [
      "",
      "Previews: one drop's 10 KB page on its live host, on a version's preview host (`<slug>---v1`) and on an alias's (`<slug>---staging`); three alternating rounds, each preview shown with the round of its median ratio to the live host",
      "",
      "| scenario | dropsite (built app) | ÷ the live host (same round) |",
      "|---|---|---|",
      `| 10 KB page, live host | ${fmt(version.round.live)} | 1.00× |`,
      `| 10 KB page, version preview host | ${fmt(version.round.version)} | ${times(version.ratio)} (rounds: ${list(version.ratios)}; target ≥ 0.95×) |`,
      `| 10 KB page, alias preview host | ${fmt(alias.round.alias)} | ${times(alias.ratio)} (rounds: ${list(alias.ratios)}; target ≥ 0.95×) |`,
    ];
    console.error(rows.slice(-3).join("\n"));
    return rows;
  } finally {
    await app.stop();
  }
}
