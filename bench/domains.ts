// domains: the same 10 KB page of one Team drop on its slug host and on a verified custom domain,
// in one server, alternating three times; the custom domain's extra work is its lookup key.
import path from "node:path";
import type { RunningApp } from "../tests/support/app-server";
import { startDnsStandin, type DnsStandin } from "../tests/support/dns-standin";
import { appHost, deploy, dropHost, makeAccounts, startBenchApp } from "./app";
import type { ServedSite } from "./site";
import { fmt, inRounds, list, measure, medianRound, times } from "./wrk";

const HOSTNAME = "bench.example.org";

/** Adds HOSTNAME to the drop and verifies it (the DNS stand-in holds the TXT record). */
async function verifiedDomain(app: RunningApp, dns: DnsStandin, key: string, slug: string): Promise<void> {
  const headers = { "content-type": "application/json", authorization: `Bearer ${key}` };
  const added = await app.request(appHost(app), "/domains", {
    method: "POST",
    headers,
    body: JSON.stringify({ hostname: HOSTNAME, slug }),
  });
  if (added.status !== 201) throw new Error(`add domain failed: ${added.status} ${added.text}`);
  const { verification } = added.json() as { verification: { name: string; value: string } };
  dns.setTxt(verification.name, [verification.value]);
  const verified = await app.request(appHost(app), `/domains/${HOSTNAME}/verify`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}` },
  });
  if ((verified.json() as { status?: string }).status !== "active")
    throw new Error(`verify failed: ${verified.status} ${verified.text}`);
}

export async function domainsSection(work: string, { page }: ServedSite): Promise<string[]> {
  const dns = await startDnsStandin();
  const dataDir = path.join(work, "data-domains");
  const [key] = await makeAccounts(dataDir, 1, {}, "team");
  const app = await startBenchApp(dataDir, { DNS_SERVERS: dns.servers });
  try {
    const { slug } = await deploy(app, { "index.html": page }, { key });
    await verifiedDomain(app, dns, key!, slug);
    const probe = await app.request(HOSTNAME, "/index.html");
    if (probe.status !== 200 || probe.text !== new TextDecoder().decode(page))
      throw new Error(`the custom domain does not serve the page: ${probe.status}`);
    const rounds = await inRounds(3, {
      onSlug: () => measure(app.port, dropHost(app, slug), "/index.html"),
      onDomain: () => measure(app.port, HOSTNAME, "/index.html"),
    });
    const { round, ratio, ratios } = medianRound(rounds, (r) => r.onDomain.rps / r.onSlug.rps);
    const rows = [
      "",
      "Custom domains: one drop's 10 KB page on its slug host and on its verified custom domain; three alternating pairs, the pair with the median ratio shown",
      "",
      "| scenario | dropsite (built app) | ÷ the slug host |",
      "|---|---|---|",
      `| 10 KB page, slug host | ${fmt(round.onSlug)} | 1.00× |`,
      `| 10 KB page, custom domain | ${fmt(round.onDomain)} | ${times(ratio)} (pairs: ${list(ratios)}; target ≥ 0.95×) |`,
    ];
    console.error(rows.slice(-2).join("\n"));
    return rows;
  } finally {
    await app.stop();
    await dns.close();
  }
}
