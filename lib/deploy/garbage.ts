import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

// A young-generation collection on demand, for the zip flow (./contents). The bytes a deploy
// unpacks live in Buffers, whose memory is outside V8's heap: V8 collects them only once about
// 64 MB of such memory has piled up since its last full collection, or when its own heap fills,
// and a deploy allocates little on the heap. A 25 MB archive unpacking to 54 MB thus grew the
// server's resident memory by up to 3× the archive with dead Buffers. After each group of
// entries is stored, none of its Buffers is reachable any more, and a minor collection (a few
// milliseconds: it walks only what was allocated since the last one) frees them all.

type Collect = (options: { type: "minor" | "major"; execution: "sync" | "async" }) => void;

let collect: Collect | null | undefined;

/** Frees dead young objects now (and the Buffers they held); a no-op where V8 will not expose gc(). */
export function collectYoungGarbage(): void {
  if (collect === undefined) {
    try {
      // V8's gc() is exposed to contexts created after the flag is set.
      setFlagsFromString("--expose-gc");
      collect = runInNewContext("gc") as Collect;
    } catch {
      collect = null;
    }
  }
  collect?.({ type: "minor", execution: "sync" });
}
