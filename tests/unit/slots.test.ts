import { describe, expect, it } from "vitest";
import { Slots } from "@/lib/deploy/slots";

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("Slots (zip deploys in flight)", () => {
  it("never runs more than max tasks at once, and runs every queued task", async () => {
    const slots = new Slots(2, 5_000);
    let peak = 0;
    const done: number[] = [];
    await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        slots.run(async () => {
          peak = Math.max(peak, slots.running);
          await tick(10);
          done.push(i);
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(done.sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(slots.running).toBe(0);
  });

  it("a failing task frees its slot", async () => {
    const slots = new Slots(1, 5_000);
    await expect(slots.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    await expect(slots.run(async () => "ok")).resolves.toBe("ok");
  });

  it("a task that waits too long is refused with 503 and Retry-After, and leaves the queue", async () => {
    const slots = new Slots(1, 30);
    let release!: () => void;
    const holder = slots.run(() => new Promise<void>((r) => (release = r)));
    await expect(slots.run(async () => "late")).rejects.toMatchObject({
      code: "upstream_unavailable",
      headers: { "Retry-After": "5" },
    });
    release();
    await holder;
    await expect(slots.run(async () => "next")).resolves.toBe("next");
  });

  it("two Slots over one shared state are one pool (the data plane's and Next's copies of zipSlots)", async () => {
    const state = { active: 0, queue: [] as (() => void)[] };
    const a = new Slots(1, 5_000, state);
    const b = new Slots(1, 5_000, state);
    let release!: () => void;
    const holder = a.run(() => new Promise<void>((r) => (release = r)));
    let ran = false;
    const waiting = b.run(async () => {
      ran = true;
    });
    await tick(20);
    expect(ran).toBe(false);
    expect(b.running).toBe(1);
    release();
    await Promise.all([holder, waiting]);
    expect(ran).toBe(true);
    expect(state.active).toBe(0);
  });
});
