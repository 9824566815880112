import { ApiError } from "../errors";
import { queryInteger } from "../input";
import { TTL_CEILING_SECONDS, type TierLimits } from "../plans";

export { TTL_CEILING_SECONDS };

/**
 * Resolves the `ttl` query parameter for a tier: seconds, or null for "never expires".
 * Absent → the tier's default.
 */
export function resolveTtl(raw: string | null, limits: TierLimits, paid: boolean): number | null {
  if (raw === null) return limits.ttlDefaultSeconds;
  const ttl = queryInteger(raw);
  if (ttl === undefined) {
    throw new ApiError("invalid_ttl", "ttl must be a whole number of seconds, in decimal digits.", {
      hint: "For example ttl=3600 for one hour.",
      docs: "ttl",
    });
  }
  if (ttl < limits.ttlMinSeconds) {
    throw new ApiError("invalid_ttl", `ttl must be at least ${limits.ttlMinSeconds} seconds.`, {
      docs: "ttl",
      details: { limit: "ttl_min_seconds", allowed: limits.ttlMinSeconds },
    });
  }
  if (limits.ttlMaxSeconds !== null && ttl > limits.ttlMaxSeconds) {
    throw new ApiError("invalid_ttl", `ttl must be at most ${limits.ttlMaxSeconds} seconds on this plan.`, {
      docs: "ttl",
      details: { limit: "ttl_max_seconds", allowed: limits.ttlMaxSeconds },
      ...(paid ? {} : { hint: "Subscribers may set any lifetime, or none; see upgrade_url.", upgrade: true }),
    });
  }
  if (ttl > TTL_CEILING_SECONDS) {
    throw new ApiError("invalid_ttl", `ttl must be at most ${TTL_CEILING_SECONDS} seconds (100 years).`, {
      details: { limit: "ttl_max_seconds", allowed: TTL_CEILING_SECONDS },
      hint: "Subscribers' drops never expire when ttl is omitted.",
      docs: "ttl",
    });
  }
  return ttl;
}
