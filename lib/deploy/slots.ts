import { ApiError } from "../errors";

interface SlotState {
  active: number;
  queue: (() => void)[];
}

/**
 * At most `max` tasks at once; later ones queue, and one that waits longer than `waitMs` is
 * refused with 503. A zip deploy holds its archive and one group of unpacked entries
 * (lib/deploy/contents.ts) until its bytes are stored, so the process bounds how many run
 * together.
 */
export class Slots {
  constructor(
    readonly max: number,
    private readonly waitMs: number,
    /** The count and queue; pass one shared object to make several Slots one pool. */
    private readonly state: SlotState = { active: 0, queue: [] },
  ) {}

  get running(): number {
    return this.state.active;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.state.active >= this.max) await this.wait();
    this.state.active++;
    try {
      return await task();
    } finally {
      this.state.active--;
      this.state.queue.shift()?.();
    }
  }

  private wait(): Promise<void> {
    return new Promise((resolve, reject) => {
      const go = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const i = this.state.queue.indexOf(go);
        if (i >= 0) this.state.queue.splice(i, 1);
        reject(
          new ApiError("upstream_unavailable", "The server is busy unpacking other archives.", {
            hint: "Retry in a few seconds.",
            headers: { "Retry-After": "5" },
          }),
        );
      }, this.waitMs);
      this.state.queue.push(go);
    });
  }
}

// One pool per process, its state on globalThis like the context (lib/context.ts): self-hosted,
// the data plane's bundle (REST zip deploys) and Next's bundles (the dashboard's zip uploads) are
// separate copies of this module in one process, and a pool per copy would let more run. Only
// the plain state is shared, not a Slots object: its 503 must be the ApiError of the copy that
// waits (errors are told apart with instanceof, per copy).
const KEY = Symbol.for("dropsite.zipSlots");
const slot = globalThis as unknown as Record<symbol, SlotState | undefined>;

/** Zip deploys in flight per process (each holds up to about 108 MB: a 100 MB archive and one group of at most 8 MB unpacked). */
export const zipSlots = new Slots(4, 30_000, (slot[KEY] ??= { active: 0, queue: [] }));
