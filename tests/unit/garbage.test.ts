import { describe, expect, it } from "vitest";
import { collectYoungGarbage } from "@/lib/deploy/garbage";

// The zip flow's memory bound rests on this: a minor collection on demand frees Buffers nobody
// references any more (V8 would otherwise wait for about 64 MB of them).

describe("collectYoungGarbage", () => {
  it("frees a young Buffer that nothing references, and leaves one still referenced", async () => {
    const freed: string[] = [];
    const registry = new FinalizationRegistry<string>((name) => freed.push(name));
    const kept = Buffer.alloc(1024 * 1024, 1);
    registry.register(kept, "kept");
    (() => registry.register(Buffer.alloc(1024 * 1024, 2), "dropped"))();
    collectYoungGarbage();
    // Finalizers run in a later task than the collection.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(freed).toEqual(["dropped"]);
    expect(kept[0]).toBe(1);
  });
});
