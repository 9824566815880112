import { ApiError } from "../errors";
import type { Env } from "../env";
import { describeRate, ratePolicies, type LimitName, type LimitPolicy } from "./policy";
import type { LimitResult, RateLimiter } from "./types";
import { metrics } from "../metrics/registry";

/** What a guard reads of the app context (lib/context.ts sits above this layer). */
interface LimitContext {
  env: Env;
  limiter: RateLimiter;
}

// Guards over the policy table (lib/ratelimit/policy.ts). If the limiter's store is down the
// request is let through (logged): an abuse guard must not take the service down with it.

function limitKey(p: LimitPolicy, subject: string): string {
  return `${p.name}:${p.per}:${subject}`;
}

export function rateLimited(p: LimitPolicy, result: LimitResult): ApiError {
  const wait =
    p.retryAfter === "window" ? p.windowSeconds : Math.max(1, Math.min(p.windowSeconds, Math.ceil(result.retryAfter)));
  return new ApiError("rate_limited", `Too many ${p.what}: at most ${describeRate(p)}.`, {
    hint: `Wait ${wait} seconds and retry.`,
    docs: "limits",
    headers: { "Retry-After": String(wait) },
  });
}

/**
 * Counts one hit of `name` for `subject`; throws 429 rate_limited with Retry-After when the budget
 * is spent. `max` replaces the table's for a limit that the plan table sets per plan (renderCheck).
 */
export function enforceLimit(ctx: LimitContext, name: LimitName, subject: string, max?: number): Promise<void> {
  return guard(ctx, name, subject, "hit", max);
}

/** Throws 429 when the budget of `name` for `subject` is already spent, without counting a hit. */
export function checkLimit(ctx: LimitContext, name: LimitName, subject: string): Promise<void> {
  return guard(ctx, name, subject, "peek");
}

async function guard(
  ctx: LimitContext,
  name: LimitName,
  subject: string,
  op: "hit" | "peek",
  max?: number,
): Promise<void> {
  const table = ratePolicies(ctx.env)[name];
  const p = max === undefined ? table : { ...table, max };
  let result;
  try {
    result = await ctx.limiter[op](limitKey(p, subject), p.max, p.windowSeconds);
  } catch (err) {
    console.error(`[ratelimit] limiter unavailable; allowing request (${name}):`, errorLine(err));
    return;
  }
  if (!result.ok) {
    metrics().rateLimited.inc({ rule: name });
    throw rateLimited(p, result);
  }
}

function errorLine(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
