import { Resolver } from "node:dns/promises";
import type { Env } from "../env";

// TXT look-ups of custom domains' challenges, through node:dns with DNS_SERVERS when set (tests
// run a local DNS server), else the system's resolvers. Never cached here: verify asks again.

/** The record whose TXT value proves control of a hostname. */
export function challengeName(hostname: string): string {
  return `_dropsite-challenge.${hostname}`;
}

/** Answers that mean "no such record" rather than a failed look-up. */
const ABSENT = new Set(["ENODATA", "ENOTFOUND", "NXDOMAIN"]);

/** The TXT values at `name` (each record's strings joined), or why the look-up failed. */
export async function lookupTxt(
  env: Pick<Env, "DNS_SERVERS">,
  name: string,
): Promise<{ found: string[]; error?: string }> {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (env.DNS_SERVERS.length > 0) resolver.setServers(env.DNS_SERVERS);
  try {
    const records = await resolver.resolveTxt(name);
    return { found: records.map((chunks) => chunks.join("")) };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && ABSENT.has(code)) return { found: [] };
    return { found: [], error: typeof code === "string" ? code : "lookup failed" };
  }
}
