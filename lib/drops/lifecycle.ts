import type { AppContext } from "../context";
import { dropChanged } from "../serve/cache";
import { upstreamUnavailable } from "../errors";
import { deleteDropRow, dueForPurge } from "../db/queries";
import { purgeUnused } from "../deploy/contents";
import { bytelessContents, endExpiredHolds, expiredHolds } from "../db/contents";
import { purgeDeployGrants } from "../db/grants";
import { purgeExpiredIdempotencyKeys } from "../db/idempotency";
import { DEPLOY_GRANT_SECONDS, limits, VIEWERS_KEPT_DAYS, type Tier } from "../plans";
import { pruneViewers } from "../db/sharing";
import { dropsWithManyVersions, pruneVersions } from "../db/versions";
import { recheckDomains } from "../domains/recheck";
import { detachHostnames } from "../domains/detach";
import { expireCounts } from "../stats/collector";

// The cleanup job: drops whose purge time has passed lose their bytes, then their rows.
// Anonymous drops are purged 30 days after going offline; account drops at expires_at.
// Versions beyond the plan's versionsKept are pruned, then the contents only they used.
// Counts older than the longest retention (365 days) are deleted.
// Idempotent and safe to run twice at once: deleting an absent prefix or row is a no-op.

export interface CleanupResult {
  purged: number;
  slugs: string[];
  /** Versions pruned (beyond each plan's versionsKept), over all drops. */
  versions_pruned: number;
  /** Custom domains sent back to pending: their TXT record was gone for DOMAIN_TXT_GRACE_SECONDS. */
  domains_pending: string[];
}

export async function runCleanup(
  ctx: AppContext,
  opts: { batchSize?: number; maxBatches?: number } = {},
): Promise<CleanupResult> {
  try {
    return await purgeDue(ctx, opts);
  } catch (err) {
    // A store that is down leaves the rest for the next run; nothing is half-purged.
    throw upstreamUnavailable("database or file storage", err);
  }
}

async function purgeDue(ctx: AppContext, opts: { batchSize?: number; maxBatches?: number }): Promise<CleanupResult> {
  const batchSize = opts.batchSize ?? 100;
  const maxBatches = opts.maxBatches ?? 50;
  const slugs: string[] = [];
  const now = new Date(ctx.now());
  for (let i = 0; i < maxBatches; i++) {
    const due = await dueForPurge(ctx.db, now, batchSize);
    if (due.length === 0) break;
    for (const drop of due) {
      await ctx.storage.deletePrefix(`${drop.id}/`);
      const deleted = await deleteDropRow(ctx.db, drop.id, "expired", now);
      await dropChanged(ctx, drop, "expiry");
      if (deleted) {
        await detachHostnames(ctx, deleted.hostnames);
        slugs.push(drop.slug);
        await purgeUnused(ctx, deleted.old);
      }
    }
    if (due.length < batchSize) break;
  }
  const pruned = await pruneOldVersions(ctx, batchSize * maxBatches);
  await purgeExpiredUploads(ctx, now, batchSize * maxBatches);
  // Contents rows left without bytes by a request or purge cut off midway (docs/reliability.md).
  await purgeUnused(ctx, await bytelessContents(ctx.db, now, batchSize * maxBatches));
  // One-time deploy URLs are kept a while past expiry for their "expired" answer.
  await purgeDeployGrants(ctx.db, new Date(now.getTime() - DEPLOY_GRANT_SECONDS * 1000));
  await purgeExpiredIdempotencyKeys(ctx.db, now);
  await pruneViewers(ctx.db, new Date(now.getTime() - VIEWERS_KEPT_DAYS * 86_400_000));
  await expireCounts(ctx);
  const domainsPending = await recheckDomains(ctx, batchSize * maxBatches);
  return { purged: slugs.length, slugs, versions_pruned: pruned, domains_pending: domainsPending };
}

/**
 * Prunes versions beyond the plan's versionsKept (the owner's plan as it is now; anonymous for
 * drops without an owner), then purges the contents and older batches only they used.
 */
async function pruneOldVersions(ctx: AppContext, limit: number): Promise<number> {
  const keep = Object.fromEntries(Object.entries(limits).map(([tier, l]) => [tier, l.versionsKept])) as Record<
    Tier,
    number
  >;
  let pruned = 0;
  for (const drop of await dropsWithManyVersions(ctx.db, keep, limit)) {
    const tier: Tier = drop.plan ?? "anonymous";
    const out = await pruneVersions(ctx.db, drop.id, limits[tier].versionsKept);
    if (out.pruned.length === 0) continue;
    pruned += out.pruned.length;
    // Their preview hosts stop serving at once here (elsewhere within the revalidation bound).
    await dropChanged(ctx, drop, { pruned: out.pruned });
    for (const batch of out.batches) await ctx.storage.deletePrefix(`${drop.id}/${batch}/`);
    await purgeUnused(ctx, out.contents);
  }
  return pruned;
}

/** Uploads of preflights whose hold has passed and that no deploy used: bytes, then rows. */
async function purgeExpiredUploads(ctx: AppContext, now: Date, limit: number): Promise<void> {
  const held = await expiredHolds(ctx.db, now, limit);
  await purgeUnused(ctx, held);
  await endExpiredHolds(ctx.db, now);
}
