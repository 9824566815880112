import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Redis } from "@upstash/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryRateLimiter } from "@/lib/ratelimit/memory";
import type { RateLimiter } from "@/lib/ratelimit/types";
import { UpstashRateLimiter } from "@/lib/ratelimit/upstash";
import { freePort } from "../support/pg-server";
import { startUpstashStandin, type UpstashStandin } from "../support/upstash-standin";

// The RateLimiter contract, run against the in-process limiter and the Upstash limiter (the real
// @upstash/ratelimit + @upstash/redis clients → the REST stand-in → a real redis-server).

let upstash: UpstashStandin;

beforeAll(async () => {
  upstash = await startUpstashStandin();
});

afterAll(async () => {
  await upstash?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const freshKey = (what: string) => `test:${what}:${randomBytes(6).toString("hex")}`;

/**
 * Waits until the clock is well inside a window of this length, so a burst of hits does not
 * straddle a boundary (the Upstash sliding window is computed over fixed buckets).
 */
async function awayFromWindowEdge(windowSeconds: number): Promise<void> {
  const w = windowSeconds * 1000;
  const into = Date.now() % w;
  // Never more than about half a second: a wait of a whole window could pass the test timeout.
  if (into < 20) await sleep(50 - into);
  else if (into > w - 400) await sleep(w - into + 30);
}

const implementations: Array<{ name: string; make: () => RateLimiter }> = [
  { name: "MemoryRateLimiter", make: () => new MemoryRateLimiter() },
  { name: "UpstashRateLimiter", make: () => new UpstashRateLimiter(upstash.url, upstash.token) },
];

describe.each(implementations)("RateLimiter contract: $name", ({ make }) => {
  it("allows max hits, counting remaining down, then refuses with a retryAfter within the window", async () => {
    const limiter = make();
    const key = freshKey("burst");
    await awayFromWindowEdge(60);
    for (let i = 1; i <= 5; i++) {
      const r = await limiter.hit(key, 5, 60);
      expect(r).toEqual({ ok: true, retryAfter: 0, remaining: 5 - i });
    }
    for (let i = 0; i < 3; i++) {
      const r = await limiter.hit(key, 5, 60);
      expect(r.ok).toBe(false);
      expect(r.remaining).toBe(0);
      expect(r.retryAfter).toBeGreaterThanOrEqual(1);
      expect(r.retryAfter).toBeLessThanOrEqual(60);
    }
  });

  it("peek says whether a hit would pass without counting one", async () => {
    const limiter = make();
    const key = freshKey("peek");
    await awayFromWindowEdge(60);
    for (let i = 0; i < 5; i++) expect((await limiter.peek(key, 2, 60)).ok).toBe(true);
    expect((await limiter.hit(key, 2, 60)).ok).toBe(true);
    expect(await limiter.peek(key, 2, 60)).toMatchObject({ ok: true, remaining: 1 });
    expect((await limiter.hit(key, 2, 60)).ok).toBe(true);
    const spent = await limiter.peek(key, 2, 60);
    expect(spent.ok).toBe(false);
    expect(spent.retryAfter).toBeGreaterThanOrEqual(1);
    expect(spent.retryAfter).toBeLessThanOrEqual(60);
  });

  it("keeps keys independent", async () => {
    const limiter = make();
    const a = freshKey("a");
    const b = freshKey("b");
    await awayFromWindowEdge(60);
    for (let i = 0; i < 2; i++) expect((await limiter.hit(a, 2, 60)).ok).toBe(true);
    expect((await limiter.hit(a, 2, 60)).ok).toBe(false);
    expect(await limiter.hit(b, 2, 60)).toEqual({ ok: true, retryAfter: 0, remaining: 1 });
    expect((await limiter.hit(b, 2, 60)).ok).toBe(true);
    expect((await limiter.hit(b, 2, 60)).ok).toBe(false);
  });

  it("applies each call's own max on one limiter", async () => {
    const limiter = make();
    const small = freshKey("small");
    const large = freshKey("large");
    await awayFromWindowEdge(60);
    const smallResults = [];
    const largeResults = [];
    for (let i = 0; i < 7; i++) {
      smallResults.push((await limiter.hit(small, 2, 60)).ok);
      largeResults.push((await limiter.hit(large, 6, 120)).ok);
    }
    expect(smallResults).toEqual([true, true, false, false, false, false, false]);
    expect(largeResults).toEqual([true, true, true, true, true, true, false]);
  });

  it("never lets concurrent hits past the budget", async () => {
    const limiter = make();
    const key = freshKey("race");
    await awayFromWindowEdge(60);
    const results = await Promise.all(Array.from({ length: 12 }, () => limiter.hit(key, 5, 60)));
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    expect(results.filter((r) => !r.ok).every((r) => r.retryAfter >= 1 && r.retryAfter <= 60)).toBe(true);
  });

  it("allows a refused key again once retryAfter seconds have passed", async () => {
    const limiter = make();
    const key = freshKey("slide");
    await awayFromWindowEdge(2);
    for (let i = 0; i < 3; i++) expect((await limiter.hit(key, 3, 2)).ok).toBe(true);
    const refused = await limiter.hit(key, 3, 2);
    expect(refused.ok).toBe(false);
    expect(refused.retryAfter).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfter).toBeLessThanOrEqual(2);
    await sleep(refused.retryAfter * 1000 + 100);
    expect((await limiter.hit(key, 3, 2)).ok).toBe(true);
  });

  it("gives the whole budget back after a full window without hits", async () => {
    const limiter = make();
    const key = freshKey("refill");
    await awayFromWindowEdge(1);
    for (let i = 0; i < 3; i++) expect((await limiter.hit(key, 3, 1)).ok).toBe(true);
    expect((await limiter.hit(key, 3, 1)).ok).toBe(false);
    await sleep(2100);
    const again = [];
    for (let i = 0; i < 4; i++) again.push((await limiter.hit(key, 3, 1)).ok);
    expect(again).toEqual([true, true, true, false]);
  });
});

describe("UpstashRateLimiter specifics", () => {
  it("keeps its counters in Redis under the dropsite prefix, and reuses the loaded script", async () => {
    const limiter = new UpstashRateLimiter(upstash.url, upstash.token);
    const key = freshKey("keys");
    await awayFromWindowEdge(60);
    await limiter.hit(key, 3, 60);
    const before = upstash.commands.length;
    await limiter.hit(key, 3, 60);
    const stored = await upstash.redis("KEYS", `dropsite:${key}:*`);
    expect(Array.isArray(stored) && stored.length).toBe(1);
    // The second hit ran the script by its SHA (no NOSCRIPT fallback to a full EVAL).
    expect(upstash.commands.slice(before).map((c) => c[0])).toEqual(["EVALSHA"]);
  });

  it("shares one budget between limiter instances, as separate servers would", async () => {
    const one = new UpstashRateLimiter(upstash.url, upstash.token);
    const two = new UpstashRateLimiter(upstash.url, upstash.token);
    const key = freshKey("shared");
    await awayFromWindowEdge(60);
    expect((await one.hit(key, 2, 60)).ok).toBe(true);
    expect((await two.hit(key, 2, 60)).ok).toBe(true);
    expect((await one.hit(key, 2, 60)).ok).toBe(false);
    expect((await two.hit(key, 2, 60)).ok).toBe(false);
  });

  it("throws when the REST endpoint refuses the token", async () => {
    const limiter = new UpstashRateLimiter(upstash.url, "not-the-token");
    await expect(limiter.hit(freshKey("auth"), 3, 60)).rejects.toThrow(/Unauthorized/);
  });

  it("throws when the REST endpoint does not answer in time, instead of letting the hit through", async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const limiter = new UpstashRateLimiter(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`, upstash.token, { timeoutMs: 300 });
      const started = Date.now();
      await expect(limiter.hit(freshKey("slow"), 3, 60)).rejects.toThrow(/did not answer within 300 ms/);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it("throws when the REST endpoint cannot be reached", async () => {
    const limiter = new UpstashRateLimiter(`http://127.0.0.1:${await freePort()}`, upstash.token);
    await expect(limiter.hit(freshKey("down"), 3, 60)).rejects.toThrow();
  });
});

describe("the Upstash REST stand-in", () => {
  it.each([
    { encoding: "base64", responseEncoding: "base64" as const },
    { encoding: "plain JSON", responseEncoding: false as const },
  ])("round-trips commands, pipelines and transactions with $encoding responses", async ({ responseEncoding }) => {
    const redis = new Redis({ url: upstash.url, token: upstash.token, responseEncoding, enableAutoPipelining: false });
    const key = freshKey("proto");
    expect(await redis.set(key, "héllo ✓")).toBe("OK");
    expect(await redis.get(key)).toBe("héllo ✓");
    expect(await redis.ping()).toBe("PONG");
    const p = redis.pipeline();
    p.incr(`${key}:n`);
    p.incr(`${key}:n`);
    p.get(key);
    expect(await p.exec()).toEqual([1, 2, "héllo ✓"]);
    const tx = redis.multi();
    tx.incr(`${key}:n`);
    tx.hset(`${key}:h`, { a: "1" });
    tx.hgetall(`${key}:h`);
    expect(await tx.exec()).toEqual([3, 1, { a: 1 }]);
    await expect(redis.hget(key, "wrongtype")).rejects.toThrow(/WRONGTYPE/);
  });
});
