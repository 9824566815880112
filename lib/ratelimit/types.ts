// Fixed budgets of requests per window for a key (an IP, an account, a credential).

export interface LimitResult {
  ok: boolean;
  /** Seconds until a request would be allowed again (when !ok). */
  retryAfter: number;
  remaining: number;
}

export interface RateLimiter {
  readonly kind: string;
  /** Counts one request for key against `max` per `windowSeconds` and says whether it is allowed. */
  hit(key: string, max: number, windowSeconds: number): Promise<LimitResult>;
  /** Says whether a hit for key would be allowed now, without counting one. */
  peek(key: string, max: number, windowSeconds: number): Promise<LimitResult>;
  /**
   * A value every process of the service shares while it lives: the first one set for `key`
   * wins and is answered to everyone (Redis and Upstash); absent on the in-process limiter,
   * whose callers keep such values in the database instead.
   */
  shared?(key: string, fresh: string, ttlSeconds: number): Promise<string>;
}
