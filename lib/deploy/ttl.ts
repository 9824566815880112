import { ApiError } from "../errors";
import { queryInteger } from "../input";
import type { TierLimits } from "../plans";

/**
 * The longest ttl any plan accepts (100 years), even where the plan has no maximum: a date past
 * year 9999 has no RFC 3339 form, and the database refuses it.
 */
export const TTL_CEILING_SECONDS = 100 * 365 * 24 * 60 * 60;

/**
 * Resolves the `ttl` query parameter for a tier: seconds, or null for "never expires".
 * Absent → the tier's default.
 */
export function resolveTtl(raw: string | null, limits: TierLimits, paid: boolean): number | null {
  if (raw === null) return limits.ttlDefaultSeconds;
  const ttl = queryInteger(raw);
  if (ttl === undefined) {
    throw new ApiError("invalid_ttl", "ttl must be a whole number of seconds, in decimal digits.", { hint: "For example ttl=3600 for one hour.", docs: "ttl" });
  }
  if (ttl < limits.ttlMinSeconds) {
    throw new ApiError("invalid_ttl", `ttl must be at least ${limits.ttlMinSeconds} seconds.`, { docs: "ttl" });
  }
  if (limits.ttlMaxSeconds !== null && ttl > limits.ttlMaxSeconds) {
    throw new ApiError("invalid_ttl", `ttl must be at most ${limits.ttlMaxSeconds} seconds on this plan.`, {
      docs: "ttl",
      ...(paid ? {} : { hint: "Subscribers may set any lifetime, or none; see upgrade_url.", upgrade: true }),
    });
  }
  if (ttl > TTL_CEILING_SECONDS) {
    throw new ApiError("invalid_ttl", `ttl must be at most ${TTL_CEILING_SECONDS} seconds (100 years).`, {
      hint: "Subscribers' drops never expire when ttl is omitted.",
      docs: "ttl",
    });
  }
  return ttl;
}
