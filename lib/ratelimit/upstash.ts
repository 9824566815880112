import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import type { LimitResult, RateLimiter } from "./types";

// Shared limits across instances (production): @upstash/ratelimit's sliding window over Upstash
// Redis REST. One Ratelimit per (max, window) pair, all under the "dropsite" key prefix, so a key
// names one budget exactly as with the in-process limiter. A store that fails or does not answer
// in time throws; the caller decides what an unavailable limiter means.

export interface UpstashRateLimiterOptions {
  /** How long a hit may wait for Redis before it throws. */
  timeoutMs?: number;
}

export class UpstashRateLimiter implements RateLimiter {
  readonly kind = "upstash";
  private readonly windows: SlidingWindows;
  private readonly redis: Redis;

  constructor(url: string, token: string, opts: UpstashRateLimiterOptions = {}) {
    // Few, quick retries: a hit sits on a request's path.
    this.redis = new Redis({ url, token, retry: { retries: 2, backoff: (n) => 50 * 2 ** n } });
    this.windows = new SlidingWindows(this.redis, "Upstash", opts.timeoutMs ?? 3000);
  }

  async shared(key: string, fresh: string, ttlSeconds: number): Promise<string> {
    await this.redis.set(key, fresh, { nx: true, ex: ttlSeconds });
    return (await this.redis.get<string>(key)) ?? fresh;
  }

  hit(key: string, max: number, windowSeconds: number): Promise<LimitResult> {
    return this.windows.hit(key, max, windowSeconds);
  }

  peek(key: string, max: number, windowSeconds: number): Promise<LimitResult> {
    return this.windows.peek(key, max, windowSeconds);
  }
}

/** What @upstash/ratelimit calls its store: an Upstash client, or ./redis.ts's adapter of one's own Redis. */
export type RatelimitStore = ConstructorParameters<typeof Ratelimit>[0]["redis"];

/**
 * @upstash/ratelimit's sliding window over one store (this path and ./redis.ts): one Ratelimit
 * per (max, window) pair, all under the "dropsite" key prefix.
 */
export class SlidingWindows {
  private readonly limiters = new Map<string, Ratelimit>();

  /** `store` names the store in the timeout's error. */
  constructor(
    private readonly redis: RatelimitStore,
    private readonly store: string,
    private readonly timeoutMs: number,
  ) {}

  async hit(key: string, max: number, windowSeconds: number): Promise<LimitResult> {
    const res = await this.limiterFor(max, windowSeconds).limit(key);
    // On timeout the library answers success with reason "timeout"; report it as a failure
    // instead of silently letting the request through.
    if (res.reason === "timeout")
      throw new Error(`${this.store} rate limiter did not answer within ${this.timeoutMs} ms`);
    if (res.success) return { ok: true, retryAfter: 0, remaining: res.remaining };
    return { ok: false, retryAfter: Math.max(1, Math.ceil((res.reset - Date.now()) / 1000)), remaining: res.remaining };
  }

  async peek(key: string, max: number, windowSeconds: number): Promise<LimitResult> {
    const res = await this.limiterFor(max, windowSeconds).getRemaining(key);
    if (res.remaining > 0) return { ok: true, retryAfter: 0, remaining: res.remaining };
    return { ok: false, retryAfter: Math.max(1, Math.ceil((res.reset - Date.now()) / 1000)), remaining: 0 };
  }

  private limiterFor(max: number, windowSeconds: number): Ratelimit {
    const id = `${max}/${windowSeconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new Ratelimit({
        redis: this.redis,
        limiter: Ratelimit.slidingWindow(max, `${windowSeconds} s`),
        prefix: "dropsite",
        timeout: this.timeoutMs,
        analytics: false,
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }
}
