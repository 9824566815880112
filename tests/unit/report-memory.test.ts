import { describe, expect, it } from "vitest";
import type { AppContext } from "@/lib/context";
import type { InputFile } from "@/lib/deploy/paths";
import { scanWhileStoring } from "@/lib/deploy/report";

// The scans a zip deploy remembers (so that its report reads nothing back) must not keep the
// scanned files' text alive: V8 makes a substring a view of the string it was cut from, so a
// remembered reference cut from a 1 MB page would hold the whole page. Measured by the heap
// after a full collection.

const MB = 1024 * 1024;

// node's --expose-gc, which vitest.config.ts passes to its workers.
const gc = (globalThis as { gc?: () => void }).gc!;

describe("scanWhileStoring", () => {
  it("remembers a scan's references without the text they were found in", () => {
    const count = 24;
    const files: InputFile[] = Array.from({ length: count }, (_, i) => ({
      path: `pages/p${i}.html`,
      bytes: new Uint8Array(),
      source: {
        size: MB,
        allocates: MB,
        read: () => Promise.reject(new Error("not read here")),
        chunks: () => (async function* () {})(),
      },
    }));
    // A fake context is only the cache's key here (a WeakMap key): nothing else of it is read.
    const ctx = {} as AppContext;
    const onBytes = scanWhileStoring(ctx, "memory-test", files);
    gc();
    const before = process.memoryUsage().heapUsed;
    files.forEach((f, i) => {
      const head = `<!doctype html><title>p${i}</title><a href="/a/rather/long/reference/to/page-${i}.html">next</a>`;
      const page = new TextEncoder().encode(
        head + `<p>${String(i).repeat(16)} filler</p>`.repeat(MB / 32).slice(0, MB - head.length),
      );
      onBytes(f, `${i}`.padStart(64, "0"), page);
    });
    gc();
    const retained = process.memoryUsage().heapUsed - before;
    // The 24 pages' text is 24 MB; their remembered scans are a few kilobytes.
    expect(retained).toBeLessThan(4 * MB);
  });
});
