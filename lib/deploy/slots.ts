import { ApiError } from "../errors";

/**
 * At most `max` tasks at once; later ones queue, and one that waits longer than `waitMs` is
 * refused with 503. A zip deploy holds its archive and up to two waves of unpacked entries
 * (lib/deploy/contents.ts) until its bytes are stored, so the process bounds how many run
 * together.
 */
export class Slots {
  private active = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    readonly max: number,
    private readonly waitMs: number,
  ) {}

  get running(): number {
    return this.active;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await this.wait();
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }

  private wait(): Promise<void> {
    return new Promise((resolve, reject) => {
      const go = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const i = this.queue.indexOf(go);
        if (i >= 0) this.queue.splice(i, 1);
        reject(
          new ApiError("upstream_unavailable", "The server is busy unpacking other archives.", {
            hint: "Retry in a few seconds.",
            headers: { "Retry-After": "5" },
          }),
        );
      }, this.waitMs);
      this.queue.push(go);
    });
  }
}

/** Zip deploys in flight per process (each holds up to about 116 MB: a 100 MB archive and 16 MB unpacked). */
export const zipSlots = new Slots(4, 30_000);
