// A young-generation collection on demand, for the zip flow (./contents). The bytes a deploy
// unpacks live in Buffers, whose memory is outside V8's heap: V8 collects them only once about
// 64 MB of such memory has piled up since its last full collection, or when its own heap fills,
// and a deploy allocates little on the heap. A 25 MB archive unpacking to 54 MB thus grew the
// server's resident memory by up to 3× the archive with dead Buffers. After each group of
// entries is stored, none of its Buffers is reachable any more, and a minor collection (a few
// milliseconds: it walks only what was allocated since the last one) frees them all.
//
// The collection is opt-in, by Node's own flag: it runs only where the process was started with
// `--expose-gc` (`node --expose-gc server.mjs`, as the Dockerfile does, or NODE_OPTIONS=--expose-gc).
// Without the flag it is a no-op and a zip deploy's memory is bounded by V8's own schedule.
// The flag is not set at run time (v8.setFlagsFromString): Node documents flags changed after
// the VM has started as undefined behaviour.

type Collect = (options: { type: "minor" | "major"; execution: "sync" | "async" }) => void;

/** Frees dead young objects now (and the Buffers they held); a no-op unless node runs with --expose-gc. */
export function collectYoungGarbage(): void {
  const gc = (globalThis as { gc?: Collect }).gc;
  if (typeof gc === "function") gc({ type: "minor", execution: "sync" });
}
