import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { INVALID_DEPLOY_FACTOR, ratePolicies } from "@/lib/ratelimit/policy";

// The one table of rate limits: the deploy budget follows RATE_LIMIT_DEPLOYS_PER_MINUTE, the
// refused-request budget is higher, and no guard outside lib/ratelimit names a number.

describe("rate-limit policy table", () => {
  it("derives the deploy budgets from RATE_LIMIT_DEPLOYS_PER_MINUTE", () => {
    const p = ratePolicies(parseEnv({ RATE_LIMIT_DEPLOYS_PER_MINUTE: "7" }));
    expect(p.deploy).toMatchObject({ max: 7, windowSeconds: 60, per: "ip", retryAfter: "window" });
    expect(p.deployInvalid).toMatchObject({ max: 7 * INVALID_DEPLOY_FACTOR, per: "ip", retryAfter: "limiter" });
    expect(p.deployInvalid.max).toBeGreaterThan(p.deploy.max);
    expect(ratePolicies(parseEnv({})).deploy.max).toBe(10);
  });

  it("names every limit with its subject and what it counts", () => {
    for (const [name, p] of Object.entries(ratePolicies(parseEnv({})))) {
      expect(p.name).toBe(name);
      expect(p.max).toBeGreaterThan(0);
      expect(p.counts.length).toBeGreaterThan(10);
    }
  });

  it("every guard goes through the table: no limiter calls outside lib/ratelimit", () => {
    const files = execFileSync("git", ["ls-files", "lib", "app"], { encoding: "utf8" })
      .split("\n")
      .filter((f) => /\.tsx?$/.test(f) && !f.startsWith("lib/ratelimit/"));
    const offenders = files.filter((f) =>
      /limiter\.(hit|peek)\(|enforceLimit\([^)]*,\s*\d/.test(readFileSync(f, "utf8")),
    );
    expect(offenders).toEqual([]);
  });
});
