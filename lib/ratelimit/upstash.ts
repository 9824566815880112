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
  private readonly redis: Redis;
  private readonly limiters = new Map<string, Ratelimit>();
  private readonly timeoutMs: number;

  constructor(url: string, token: string, opts: UpstashRateLimiterOptions = {}) {
    // Few, quick retries: a hit sits on a request's path.
    this.redis = new Redis({ url, token, retry: { retries: 2, backoff: (n) => 50 * 2 ** n } });
    this.timeoutMs = opts.timeoutMs ?? 3000;
  }

  async hit(key: string, max: number, windowSeconds: number): Promise<LimitResult> {
    return limitResult(await this.limiterFor(max, windowSeconds).limit(key), "Upstash", this.timeoutMs);
  }

  async peek(key: string, max: number, windowSeconds: number): Promise<LimitResult> {
    return remainingResult(await this.limiterFor(max, windowSeconds).getRemaining(key));
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

/** A hit's answer from @upstash/ratelimit's `limit` (this path and ./redis.ts). */
export function limitResult(res: Awaited<ReturnType<Ratelimit["limit"]>>, store: string, timeoutMs: number): LimitResult {
  // On timeout the library answers success with reason "timeout"; report it as a failure
  // instead of silently letting the request through.
  if (res.reason === "timeout") throw new Error(`${store} rate limiter did not answer within ${timeoutMs} ms`);
  if (res.success) return { ok: true, retryAfter: 0, remaining: res.remaining };
  return { ok: false, retryAfter: Math.max(1, Math.ceil((res.reset - Date.now()) / 1000)), remaining: res.remaining };
}

/** A peek's answer from @upstash/ratelimit's `getRemaining`. */
export function remainingResult(res: Awaited<ReturnType<Ratelimit["getRemaining"]>>): LimitResult {
  if (res.remaining > 0) return { ok: true, retryAfter: 0, remaining: res.remaining };
  return { ok: false, retryAfter: Math.max(1, Math.ceil((res.reset - Date.now()) / 1000)), remaining: 0 };
}
