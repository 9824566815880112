// dropsite domains: custom domains serving a drop (Team plan).
import type { components } from "../../client";
import { limits } from "../../lib/plans";
import { answer, apiClient } from "../core/api";
import { requireKey, usageError, type Command, type Flags, type Target } from "../core/command";
import { print, table } from "../core/output";

type DomainInfo = components["schemas"]["Domain"];

const DOMAINS_USAGE = "dropsite domains add <hostname> <slug> | list | verify <hostname> | rm <hostname>";

function domainRecords(d: DomainInfo): string {
  return [
    `  TXT    ${d.verification.name}  "${d.verification.value}"`,
    `  CNAME  ${d.hostname}  ${d.target.value}`,
  ].join("\n");
}

async function cmdDomains(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [sub, ...rest] = args;
  const usage = () => usageError(DOMAINS_USAGE);
  const client = apiClient(target);
  if (sub === "add") {
    const [hostname, slug] = rest;
    if (rest.length !== 2 || hostname === undefined || slug === undefined) throw usage();
    const d = await answer(client.POST("/domains", { body: { hostname, slug } }));
    if (flags.json) return print(d);
    process.stdout.write(
      `Added ${d.hostname} for ${d.slug} (${d.status}). Publish these DNS records, then run: dropsite domains verify ${d.hostname}\n${domainRecords(d)}\n`,
    );
  } else if (sub === "list" || sub === "ls") {
    if (rest.length !== 0) throw usage();
    const res = await answer(client.GET("/domains"));
    if (flags.json) return print(res);
    if (res.domains.length === 0) return void process.stdout.write("No custom domains.\n");
    const rows = res.domains.map((d) => [d.hostname, d.slug, d.status]);
    table(["HOSTNAME", "SLUG", "STATUS"], rows);
  } else if (sub === "verify") {
    const [hostname] = rest;
    if (rest.length !== 1 || hostname === undefined) throw usage();
    const d = await answer(client.POST("/domains/{hostname}/verify", { params: { path: { hostname } } }));
    if (flags.json) return print(d);
    if (d.status === "active") {
      process.stdout.write(`${d.hostname} is active: it serves ${d.slug}.\n`);
      if (d.vercel?.misconfigured) process.stdout.write(`Vercel does not see the CNAME yet:\n${domainRecords(d)}\n`);
      return;
    }
    const found = d.checks.map((c) =>
      c.error
        ? `the look-up failed (${c.error})`
        : c.found.length
          ? `found ${c.found.map((v) => JSON.stringify(v)).join(", ")}`
          : "no TXT record yet",
    );
    process.stdout.write(
      `${d.hostname} is pending: ${found.join("; ")}. DNS changes can take minutes; publish:\n${domainRecords(d)}\n`,
    );
  } else if (sub === "rm" || sub === "remove") {
    const [hostname] = rest;
    if (rest.length !== 1 || hostname === undefined) throw usage();
    const res = await answer(client.DELETE("/domains/{hostname}", { params: { path: { hostname } } }));
    if (flags.json) return print(res);
    process.stdout.write(`Removed ${res.deleted}\n`);
  } else {
    throw usage();
  }
}

export const domains: Command = {
  usage: DOMAINS_USAGE,
  about: `Custom domains (Team plan, up to ${limits.team.maxDomains}): serve a drop at your own hostname.
  add     prints the two DNS records to publish: a TXT record proving the name is yours, and
          a CNAME pointing the name at the drop
  verify  looks the TXT record up: active (served) once it holds the value; else pending
  list    your domains and their status
  rm      stop serving the drop at that hostname (the drop stays)`,
  run: cmdDomains,
};
