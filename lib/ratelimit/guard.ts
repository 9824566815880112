import { ApiError } from "../errors";
import type { AppContext } from "../context";

/**
 * Counts one request against a budget and throws 429 rate_limited with Retry-After when it is
 * spent. If the limiter's store is down the request is let through (logged): an abuse guard
 * must not take the service down with it.
 */
export async function enforceLimit(ctx: AppContext, key: string, max: number, windowSeconds: number, what: string): Promise<void> {
  let result;
  try {
    result = await ctx.limiter.hit(key, max, windowSeconds);
  } catch (err) {
    console.error("[ratelimit] limiter unavailable; allowing request", err);
    return;
  }
  if (!result.ok) {
    throw new ApiError("rate_limited", `Too many ${what}: at most ${max} per ${windowSeconds === 60 ? "minute" : `${windowSeconds} s`}.`, {
      hint: `Wait ${windowSeconds} seconds and retry.`,
      docs: "limits",
      headers: { "Retry-After": String(windowSeconds) },
    });
  }
}
