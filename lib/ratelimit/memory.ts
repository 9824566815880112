import type { LimitResult, RateLimiter } from "./types";

// The embedded default: a sliding-window log per key, in this process only.

export class MemoryRateLimiter implements RateLimiter {
  readonly kind = "memory";
  private readonly hits = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async hit(key: string, max: number, windowSeconds: number): Promise<LimitResult> {
    const now = this.now();
    const windowMs = windowSeconds * 1000;
    this.sweep(now, windowMs);
    const log = (this.hits.get(key) ?? []).filter((t) => t > now - windowMs);
    if (log.length >= max) {
      this.hits.set(key, log);
      const oldest = log[0] ?? now;
      return { ok: false, retryAfter: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)), remaining: 0 };
    }
    log.push(now);
    this.hits.set(key, log);
    return { ok: true, retryAfter: 0, remaining: max - log.length };
  }

  async peek(key: string, max: number, windowSeconds: number): Promise<LimitResult> {
    const now = this.now();
    const windowMs = windowSeconds * 1000;
    const log = (this.hits.get(key) ?? []).filter((t) => t > now - windowMs);
    if (log.length >= max) {
      const oldest = log[0] ?? now;
      return { ok: false, retryAfter: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)), remaining: 0 };
    }
    return { ok: true, retryAfter: 0, remaining: max - log.length };
  }

  // Forget idle keys now and then so the map does not grow without bound.
  private sweep(now: number, windowMs: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, log] of this.hits) {
      if ((log[log.length - 1] ?? 0) <= now - Math.max(windowMs, 3_600_000)) this.hits.delete(key);
    }
  }
}
