import type { AppContext } from "../context";
import { activeDomainsToRecheck, expireDomain, markDomainSeen } from "../db/domains";
import { DOMAIN_TXT_GRACE_SECONDS } from "../plans";
import { domainChanged } from "../serve/cache";
import { detachQuietly } from "./detach";
import { challengeName, lookupTxt } from "./dns";

// The cleanup job's re-check of active custom domains: a TXT record still holding its value
// refreshes last_seen_at; one missing for DOMAIN_TXT_GRACE_SECONDS sends the domain back to
// pending (not served until verified again) and detaches it at Vercel. A failed look-up (SERVFAIL, a timeout) counts as
// neither: only an answer without the value does. The owner's webhook hears of it once webhooks land.

/** Re-checks up to `limit` active domains, least recently seen first; the hostnames sent back to pending. */
export async function recheckDomains(ctx: AppContext, limit: number): Promise<string[]> {
  const now = new Date(ctx.now());
  const before = new Date(now.getTime() - DOMAIN_TXT_GRACE_SECONDS * 1000);
  const expired: string[] = [];
  for (const row of await activeDomainsToRecheck(ctx.db, limit)) {
    const txt = await lookupTxt(ctx.env, challengeName(row.hostname));
    if (txt.found.includes(row.verificationValue)) {
      await markDomainSeen(ctx.db, row.hostname, now);
      continue;
    }
    if (txt.error) continue;
    if (await expireDomain(ctx.db, row.hostname, before)) {
      expired.push(row.hostname);
      await domainChanged(ctx, row.hostname);
      await detachQuietly(ctx, row.hostname);
    }
  }
  return expired;
}
