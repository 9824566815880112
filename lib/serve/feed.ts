import type { AppContext } from "../context";
import { pruneChanges, readChanges, type FeedChange } from "../db/serving";

// The change feed's reader: each process learns what changed since it last looked with one
// query for all drops (lib/db/serving.ts readChanges over drop_changes, which triggers on drops,
// domains and accounts write), instead of asking the database about every cached manifest.
//
// Polling is driven by the serve path (so it works the same on a long-running server and on a
// Vercel function instance, which catches up on its next invocation): a lookup starts a poll in
// the background once the last one is FEED_INTERVAL_MS old (one poll in flight per process),
// and waits for one only when the last is FEED_STALE_MS old, which keeps the bound: a change
// committed at T is applied before any lookup after T + FEED_STALE_MS answers from memory. An
// idle process asks nothing.
//
// Correctness across out-of-order commits: each poll reads the rows of transactions with an id
// at or above the previous poll's snapshot xmin and takes the next xmin in the same statement;
// rows already applied (by seq) are skipped. A manifest loaded after poll p was applied misses
// only changes committed after p's snapshot, which the next polls read; a poll that applies
// changes while a load is in flight bumps the cache's generation, so that load is not kept.

/** How often a process with traffic reads the feed. */
export const FEED_INTERVAL_MS = 1000;
/** After this long without a completed read, a lookup waits for one (the cross-instance bound). */
export const FEED_STALE_MS = 2000;
/** Rows older than this are deleted; a process that has not read for half of it starts over. */
const FEED_KEEP_MS = 10 * 60_000;
const FEED_GAP_MS = FEED_KEEP_MS / 2;
/** How often one process prunes the feed. */
const PRUNE_EVERY_MS = 60_000;

/** What a poll hands the cache: the changes to apply, or "all" when the feed starts (over). */
export type FeedApply = (changes: FeedChange[] | "all") => void;

interface FeedState {
  /** The xmin to read from next; null until the first read (the baseline). */
  xmin: string | null;
  /** Seqs applied by the last read, which the next may return again. */
  seen: Set<number>;
  /** ctx.now() when the last completed read started; -Infinity before one. */
  polledAt: number;
  inFlight: Promise<boolean> | undefined;
  prunedAt: number;
}

const KEY = Symbol.for("dropsite.serveFeed");
const slot = globalThis as unknown as Record<symbol, WeakMap<AppContext, FeedState> | undefined>;

function state(ctx: AppContext): FeedState {
  const all = (slot[KEY] ??= new WeakMap());
  let s = all.get(ctx);
  if (!s) {
    s = { xmin: null, seen: new Set(), polledAt: -Infinity, inFlight: undefined, prunedAt: -Infinity };
    all.set(ctx, s);
  }
  return s;
}

async function poll(ctx: AppContext, s: FeedState, apply: FeedApply): Promise<boolean> {
  const startedAt = ctx.now();
  if (s.xmin !== null && startedAt - s.polledAt > FEED_GAP_MS) {
    // Rows this process never read may be pruned by now: start over from a new baseline.
    s.xmin = null;
    s.seen.clear();
  }
  try {
    const { xmin, changes } = await readChanges(ctx.db, s.xmin);
    if (s.xmin === null) {
      apply("all");
    } else {
      const fresh = changes.filter((c) => !s.seen.has(c.seq));
      if (fresh.length > 0) apply(fresh);
    }
    s.seen = new Set(changes.map((c) => c.seq));
    s.xmin = xmin;
    s.polledAt = startedAt;
  } catch (err) {
    console.error("[serve] change feed read failed:", err instanceof Error ? err.message : err);
    return false;
  }
  if (startedAt - s.prunedAt >= PRUNE_EVERY_MS) {
    s.prunedAt = startedAt;
    pruneChanges(ctx.db, FEED_KEEP_MS).catch((err: unknown) =>
      console.error("[serve] change feed prune failed:", err instanceof Error ? err.message : err),
    );
  }
  return true;
}

/** A lookup waits this long for a read; past it the cache checks its entry's row instead. */
const FEED_WAIT_MS = 3000;

/** The read's outcome, or false when it takes longer than FEED_WAIT_MS (a hung connection). */
function waitFor(read: Promise<boolean>): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), FEED_WAIT_MS);
  });
  return Promise.race([read, late]).finally(() => clearTimeout(timer));
}

function start(ctx: AppContext, s: FeedState, apply: FeedApply): Promise<boolean> {
  if (!s.inFlight) {
    s.inFlight = poll(ctx, s, apply).finally(() => {
      s.inFlight = undefined;
    });
  }
  return s.inFlight;
}

/**
 * Whether the feed is current enough for cached manifests to be used as they are: true at once
 * while the last read is younger than FEED_STALE_MS (starting the next read in the background
 * past FEED_INTERVAL_MS), otherwise after a read completes; false when the database could not
 * be read (the cache then revalidates entries one by one, as it did before the feed).
 */
export function feedCurrent(ctx: AppContext, apply: FeedApply): boolean | Promise<boolean> {
  const s = state(ctx);
  const age = ctx.now() - s.polledAt;
  if (age < FEED_STALE_MS) {
    if (age >= FEED_INTERVAL_MS) void start(ctx, s, apply);
    return true;
  }
  return (async () => {
    const ok = await waitFor(start(ctx, s, apply));
    // A read that was already in flight may have started too long ago: one more, then.
    return ok && ctx.now() - s.polledAt >= FEED_STALE_MS ? waitFor(start(ctx, s, apply)) : ok;
  })();
}
