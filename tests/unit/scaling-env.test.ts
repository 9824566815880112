import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "@/lib/env";

// The configuration of issue 29's scaling parts: each malformed value names its variable.

const PG = "postgres://u:p@127.0.0.1:5432/db";

describe("WEB_CONCURRENCY", () => {
  it("defaults to one worker and takes a positive whole number", () => {
    expect(parseEnv({}).WEB_CONCURRENCY).toBe(1);
    expect(parseEnv({ WEB_CONCURRENCY: "" }).WEB_CONCURRENCY).toBe(1);
    expect(parseEnv({ WEB_CONCURRENCY: "1" }).WEB_CONCURRENCY).toBe(1);
    expect(parseEnv({ WEB_CONCURRENCY: " 4 ", DATABASE_URL: PG }).WEB_CONCURRENCY).toBe(4);
  });

  it.each(["0", "-1", "1.5", "1e1", "0x2", "two", "01", "2 workers"])("refuses %j, naming it", (v) => {
    expect(() => parseEnv({ WEB_CONCURRENCY: v, DATABASE_URL: PG })).toThrow(EnvError);
    expect(() => parseEnv({ WEB_CONCURRENCY: v, DATABASE_URL: PG })).toThrow(
      /WEB_CONCURRENCY: WEB_CONCURRENCY must be a positive whole number/,
    );
  });

  it("more than 256 is refused as such", () => {
    expect(parseEnv({ WEB_CONCURRENCY: "256", DATABASE_URL: PG }).WEB_CONCURRENCY).toBe(256);
    expect(() => parseEnv({ WEB_CONCURRENCY: "257", DATABASE_URL: PG })).toThrow(
      /WEB_CONCURRENCY: WEB_CONCURRENCY must be at most 256/,
    );
  });

  it("above 1 without DATABASE_URL is refused, naming DATABASE_URL", () => {
    expect(() => parseEnv({ WEB_CONCURRENCY: "2" })).toThrow(
      /WEB_CONCURRENCY: 2 workers need a database they can share: set DATABASE_URL/,
    );
  });
});

describe("REDIS_URL and the CDN variables", () => {
  it("REDIS_URL takes redis:// and rediss:// only", () => {
    expect(parseEnv({ REDIS_URL: "redis://127.0.0.1:6379" }).REDIS_URL).toBe("redis://127.0.0.1:6379");
    expect(parseEnv({ REDIS_URL: "rediss://user:pw@cache.example.com:6380/0" }).REDIS_URL).toBe(
      "rediss://user:pw@cache.example.com:6380/0",
    );
    expect(() => parseEnv({ REDIS_URL: "http://127.0.0.1:6379" })).toThrow(
      /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/,
    );
  });

  it("CDN_CACHE is a switch, off by default; CDN_PURGE_URL is an http(s) URL", () => {
    expect(parseEnv({}).CDN_CACHE).toBe(false);
    expect(parseEnv({ CDN_CACHE: "1" }).CDN_CACHE).toBe(true);
    expect(() => parseEnv({ CDN_CACHE: "maybe" })).toThrow(/CDN_CACHE/);
    expect(
      parseEnv({ CDN_PURGE_URL: "https://api.cloudflare.com/client/v4/zones/z/purge_cache" }).CDN_PURGE_URL,
    ).toContain("purge_cache");
    expect(() => parseEnv({ CDN_PURGE_URL: "ftp://purge.example.com" })).toThrow(
      /CDN_PURGE_URL must be an http\(s\) URL/,
    );
  });
});
