import { describe, expect, it } from "vitest";
import { getHeapSpaceStatistics } from "node:v8";
import { collectYoungGarbage, OLD_GROWTH_BYTES, watchOldGarbage, whileWatchingOldGarbage } from "@/lib/deploy/garbage";

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

type Collect = (options: { type: "minor" | "major"; execution: "sync" | "async" }) => void;

const oldSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === "old_space")!.space_used_size;

/** What earlier tests left in the old space goes (a collection one of them asked for included), so only a test's own growth counts. */
const settle = () => (globalThis as { gc?: Collect }).gc!({ type: "major", execution: "sync" });

/** Objects of about `bytes` on V8's heap, moved to the old generation (two minor collections survived). */
function promoted(bytes: number): object[] {
  const held: object[] = [];
  // Arrays of small integers: 4 bytes an element on the heap, nothing shared between them.
  for (let i = 0; i < bytes / 4096; i++) held.push(Array.from({ length: 1000 }, (_, k) => i + k));
  collectYoungGarbage();
  collectYoungGarbage();
  return held;
}

describe("watchOldGarbage", () => {
  it("asks for no collection while the old space has grown less than its bound", () => {
    settle();
    const check = watchOldGarbage();
    const held = promoted(OLD_GROWTH_BYTES / 4);
    expect(check()).toBe(false);
    expect(held.length).toBeGreaterThan(0);
  });

  it("asks for one full collection, as a task of its own, once the old space has grown past its bound", () => {
    settle();
    const real = (globalThis as { gc?: Collect }).gc!;
    const calls: Parameters<Collect>[0][] = [];
    (globalThis as { gc?: Collect }).gc = (options) => (calls.push(options), real(options));
    try {
      const before = oldSpace();
      const check = watchOldGarbage();
      const held = promoted(3 * OLD_GROWTH_BYTES);
      expect(oldSpace() - before).toBeGreaterThan(OLD_GROWTH_BYTES);
      expect(check()).toBe(true);
      // Counted again from here: the next check does not ask for another.
      expect(check()).toBe(false);
      expect(calls.filter((c) => c.type === "major")).toEqual([{ type: "major", execution: "async" }]);
      expect(held.length).toBeGreaterThan(0);
    } finally {
      (globalThis as { gc?: Collect }).gc = real;
    }
  });

  it("does nothing where node runs without --expose-gc", () => {
    settle();
    const real = (globalThis as { gc?: Collect }).gc;
    (globalThis as { gc?: Collect }).gc = undefined;
    const check = watchOldGarbage();
    (globalThis as { gc?: Collect }).gc = real;
    const before = oldSpace();
    const held = promoted(3 * OLD_GROWTH_BYTES);
    expect(oldSpace() - before).toBeGreaterThan(OLD_GROWTH_BYTES);
    expect(check()).toBe(false);
    expect(held.length).toBeGreaterThan(0);
  });
});

describe("whileWatchingOldGarbage", () => {
  it("asks for a full collection while its work runs and the old space grows, and answers the work's value", async () => {
    const real = (globalThis as { gc?: Collect }).gc!;
    const calls: Parameters<Collect>[0][] = [];
    settle();
    (globalThis as { gc?: Collect }).gc = (options) => (calls.push(options), real(options));
    try {
      const answer = await whileWatchingOldGarbage(async () => {
        const held = promoted(3 * OLD_GROWTH_BYTES);
        await new Promise((r) => setTimeout(r, 400));
        return held.length;
      });
      expect(answer).toBeGreaterThan(0);
      expect(calls.filter((c) => c.type === "major")).toEqual([{ type: "major", execution: "async" }]);
      // Once the work is done nothing is watched any more.
      const after = calls.length;
      promoted(3 * OLD_GROWTH_BYTES);
      await new Promise((r) => setTimeout(r, 300));
      expect(calls.slice(after).filter((c) => c.type === "major")).toEqual([]);
    } finally {
      (globalThis as { gc?: Collect }).gc = real;
    }
  });

  it("stops watching when its work fails, and passes the failure on", async () => {
    settle();
    const real = (globalThis as { gc?: Collect }).gc!;
    const calls: Parameters<Collect>[0][] = [];
    (globalThis as { gc?: Collect }).gc = (options) => (calls.push(options), real(options));
    try {
      const failure = new Error("store lost");
      await expect(whileWatchingOldGarbage(() => Promise.reject(failure))).rejects.toBe(failure);
      // The old space grows past the bound after the failure: nothing watches it any more.
      const held = promoted(3 * OLD_GROWTH_BYTES);
      await new Promise((r) => setTimeout(r, 300));
      expect(calls.filter((c) => c.type === "major")).toEqual([]);
      expect(held.length).toBeGreaterThan(0);
    } finally {
      (globalThis as { gc?: Collect }).gc = real;
    }
  });
});
