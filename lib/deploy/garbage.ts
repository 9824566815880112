// Collections on demand, for the zip flow (./contents): a young one after each group, and for a
// zip by reference a full one when the old generation has grown (watchOldGarbage). The bytes a deploy unpacks live in
// Buffers, whose memory is outside V8's heap: V8 collects them only once about 64 MB of such
// memory has piled up since its last full collection, or when its own heap fills, and a deploy
// allocates little on the heap. A 25 MB archive unpacking to 54 MB thus grew the server's
// resident memory by up to 3× the archive with dead Buffers. After each group of entries is
// stored, none of its Buffers is reachable any more, and a minor collection (a few milliseconds:
// it walks only what was allocated since the last one) frees them all.
//
// The collection is opt-in, by Node's own flag: it runs only where the process was started with
// `--expose-gc` (`node --expose-gc server.mjs`, as the Dockerfile does, or NODE_OPTIONS=--expose-gc).
// Without the flag it is a no-op and a zip deploy's memory is bounded by V8's own schedule.
// The flag is not set at run time (v8.setFlagsFromString): Node documents flags changed after
// the VM has started as undefined behaviour.

import { getHeapSpaceStatistics } from "node:v8";

type Collect = (options: { type: "minor" | "major"; execution: "sync" | "async" }) => void;

/** Frees dead young objects now (and the Buffers they held); a no-op unless node runs with --expose-gc. */
export function collectYoungGarbage(): void {
  const gc = (globalThis as { gc?: Collect }).gc;
  if (typeof gc === "function") gc({ type: "minor", execution: "sync" });
}

/** Bytes of V8's old space in use now. */
function oldSpaceUsed(): number {
  for (const space of getHeapSpaceStatistics()) if (space.space_name === "old_space") return space.space_used_size;
  return 0;
}

/** How far V8's old space may grow during one unpack before a full collection is asked for. */
export const OLD_GROWTH_BYTES = 4 * 1024 * 1024;

/**
 * For a zip by reference (./zipref): its old generation grew with garbage. The minor collection
 * after each group also promotes what is alive at that moment and already survived one (a
 * store's requests in flight: about 16 KB a file with the S3 store); it dies soon after, but in
 * the old generation, which only a full collection frees, and V8 starts one when the old
 * generation has grown by tens of MB. So a zip by reference grew the server by 14 MB more over
 * its unpack (up to 2.1× the archive in all; docs/benchmarks.md). The check this returns asks for
 * a full collection once the old space has grown by OLD_GROWTH_BYTES since the watch began or
 * since the last one it asked for, and answers whether it did. `execution: "async"` posts the
 * collection as a task of its own, run once the current callback is done; it is still a full
 * pause of this process (73–75 ms here, `--trace-gc`, on a heap of 110 MB that holds Next and
 * PGlite). A no-op without --expose-gc.
 */
export function watchOldGarbage(): () => boolean {
  const gc = (globalThis as { gc?: Collect }).gc;
  if (typeof gc !== "function") return () => false;
  let low = oldSpaceUsed();
  return () => {
    const used = oldSpaceUsed();
    if (used < low) low = used;
    if (used - low <= OLD_GROWTH_BYTES) return false;
    gc({ type: "major", execution: "async" });
    low = used;
    return true;
  };
}

/** How often `whileWatchingOldGarbage` looks at the old space. */
const WATCH_EVERY_MS = 100;

/**
 * Runs `work` with the old space watched (watchOldGarbage) every WATCH_EVERY_MS. Only the zip by
 * reference runs under it: its time is storage round trips (seconds), so a few pauses cost it
 * little, and they bound its memory. A posted zip stays within its bound without them, and
 * watched it paid for them: with the deploy scan on (whose per-file results also grow the old
 * space) the scan's share of its time went from 6.5% to 36% (docs/benchmarks.md).
 */
export async function whileWatchingOldGarbage<T>(work: () => Promise<T>): Promise<T> {
  const check = watchOldGarbage();
  const timer = setInterval(check, WATCH_EVERY_MS);
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
