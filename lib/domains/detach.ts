import type { AppContext } from "../context";
import { listAccountDomains } from "../db/domains";
import { withDb } from "../db/errors";
import { domainChanged } from "../serve/cache";
import { detachDomain } from "./vercel";

// A custom domain is attached at Vercel (its certificate, its routing to this app) only while it
// is active and points at a drop that exists. When that stops, it leaves the project: a drop
// deleted or purged, a domain the re-check sends back to pending, an account about to be
// deleted. Best effort: the change itself has happened (or must happen) whatever Vercel
// answers, so a failure is logged, never thrown; a later verify attaches the domain again.

/** Removes one hostname from the Vercel project (when one is configured), logging a failure. */
export async function detachQuietly(ctx: AppContext, hostname: string): Promise<void> {
  try {
    await detachDomain(ctx.env, hostname);
  } catch (err) {
    console.error(`[domains] could not detach ${hostname} at Vercel:`, err instanceof Error ? err.message : err);
  }
}

/**
 * Hostnames that no longer serve leave the serve caches and Vercel: a deleted or purged drop's
 * (already back to pending in the delete's transaction, `deleteDropRow`), or an account's.
 */
export async function detachHostnames(ctx: AppContext, hostnames: readonly string[]): Promise<void> {
  for (const hostname of hostnames) {
    await domainChanged(ctx, hostname);
    await detachQuietly(ctx, hostname);
  }
}

/**
 * Before an account is deleted (its domain rows go with it, by foreign key): every domain of it
 * leaves Vercel, so no certificate or routing outlives the account. A database lost before the
 * list is read answers as any other database failure (503), before anything leaves.
 */
export async function detachAccountDomains(ctx: AppContext, accountId: string): Promise<void> {
  const rows = await withDb(() => listAccountDomains(ctx.db, accountId));
  await detachHostnames(
    ctx,
    rows.map((r) => r.hostname),
  );
}
