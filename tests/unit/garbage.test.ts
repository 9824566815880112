import { describe, expect, it } from "vitest";
import { collectYoungGarbage } from "@/lib/deploy/garbage";

// The zip flow's memory bound rests on this: a minor collection on demand frees Buffers nobody
// references any more (V8 would otherwise wait for about 64 MB of them). Measured by the memory
// outside V8's heap that ArrayBuffers hold, as the zip flow's bound is: a FinalizationRegistry
// cannot tell, since V8 (Node 24) clears weak targets only in full collections. The collection
// needs node's --expose-gc, which vitest.config.ts passes to its workers (the Dockerfile's start
// passes it to the server).

const MB = 1024 * 1024;

describe("collectYoungGarbage", () => {
  it("runs where node was started with --expose-gc (the test workers are)", () => {
    expect(typeof (globalThis as { gc?: unknown }).gc).toBe("function");
  });

  it("frees young Buffers that nothing references, and leaves one still referenced", () => {
    const kept = Buffer.alloc(MB, 1);
    (() => {
      for (let i = 0; i < 24; i++) Buffer.alloc(MB, 2);
    })();
    const before = process.memoryUsage().arrayBuffers;
    collectYoungGarbage();
    const after = process.memoryUsage().arrayBuffers;
    expect(before - after).toBeGreaterThan(20 * MB);
    expect(after).toBeGreaterThanOrEqual(MB);
    expect(kept[0]).toBe(1);
    expect(kept[MB - 1]).toBe(1);
  });
});
