import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Socket } from "node:net";
import { Redis } from "@upstash/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enforceLimit } from "@/lib/ratelimit/guard";
import { MemoryRateLimiter } from "@/lib/ratelimit/memory";
import { RedisRateLimiter } from "@/lib/ratelimit/redis";
import type { RateLimiter } from "@/lib/ratelimit/types";
import { UpstashRateLimiter } from "@/lib/ratelimit/upstash";
import { freePort } from "../support/pg-server";
import {
  startRedisServer,
  startUpstashStandin,
  type RedisServer,
  type UpstashStandin,
} from "../support/upstash-standin";
import { parseEnv } from "@/lib/env";

// The RateLimiter contract, run against the in-process limiter, the Upstash limiter (the real
// @upstash/ratelimit + @upstash/redis clients → the REST stand-in → a real redis-server) and the
// Redis limiter (the same @upstash/ratelimit algorithm through the official redis client → a
// real redis-server).

let upstash: UpstashStandin;
let redis: RedisServer;
const opened: RedisRateLimiter[] = [];

beforeAll(async () => {
  [upstash, redis] = await Promise.all([startUpstashStandin(), startRedisServer()]);
});

afterAll(async () => {
  await Promise.all(opened.map((l) => l.close()));
  await upstash?.close();
  await redis?.stop();
});

function redisLimiter(url = redis.url, timeoutMs?: number): RedisRateLimiter {
  const l = new RedisRateLimiter(url, timeoutMs === undefined ? {} : { timeoutMs });
  opened.push(l);
  return l;
}

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
  { name: "RedisRateLimiter", make: () => redisLimiter() },
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

describe.each([
  {
    name: "UpstashRateLimiter",
    make: () => new UpstashRateLimiter(upstash.url, upstash.token),
    ttl: (key: string) => upstash.redis("TTL", key),
  },
  {
    name: "RedisRateLimiter",
    make: () => redisLimiter(),
    ttl: (key: string) => redis.conn.send([[Buffer.from("TTL"), Buffer.from(key)]])[0],
  },
])("a shared value (the day's salt of the counts): $name", ({ make, ttl: ttlOf }) => {
  it("answers the first value set to every instance, with the time to live asked for", async () => {
    const one: RateLimiter = make();
    const two: RateLimiter = make();
    const key = freshKey("salt");
    expect(await one.shared!(key, "first", 120)).toBe("first");
    expect(await two.shared!(key, "second", 120)).toBe("first");
    expect(await one.shared!(freshKey("salt"), "other", 120)).toBe("other");
    const ttl = Number(await ttlOf(key));
    expect(ttl).toBeGreaterThan(100);
    expect(ttl).toBeLessThanOrEqual(120);
  });
});

it("the in-process limiter shares nothing (the counts keep the salt in the database)", () => {
  const limiter: RateLimiter = new MemoryRateLimiter();
  expect("shared" in limiter).toBe(false);
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
      const limiter = new UpstashRateLimiter(
        `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        upstash.token,
        { timeoutMs: 300 },
      );
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

describe("RedisRateLimiter specifics", () => {
  const command = async (...args: string[]) => {
    const [v] = redis.conn.send([args.map((x) => Buffer.from(x))]);
    return v;
  };
  const calls = async (cmd: string) => {
    const info = ((await command("INFO", "commandstats")) as Buffer).toString();
    return Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
  };

  it("keeps its counters under the dropsite prefix, as the Upstash path does, and reuses the loaded script", async () => {
    const limiter = redisLimiter();
    const key = freshKey("keys");
    await awayFromWindowEdge(60);
    await limiter.hit(key, 3, 60);
    const [evals, evalshas] = [await calls("eval"), await calls("evalsha")];
    await limiter.hit(key, 3, 60);
    const stored = await command("KEYS", `dropsite:${key}:*`);
    expect(Array.isArray(stored) && stored.length).toBe(1);
    // The second hit ran the script by its SHA (no second full EVAL).
    expect([await calls("eval"), await calls("evalsha")]).toEqual([evals, evalshas + 1]);
  });

  it("shares one budget with the Upstash path's keys and between limiter instances, as separate servers would", async () => {
    const one = redisLimiter();
    const two = redisLimiter();
    const key = freshKey("shared");
    await awayFromWindowEdge(60);
    expect((await one.hit(key, 2, 60)).ok).toBe(true);
    expect((await two.hit(key, 2, 60)).ok).toBe(true);
    expect((await one.hit(key, 2, 60)).ok).toBe(false);
    expect((await two.hit(key, 2, 60)).ok).toBe(false);
  });

  it("throws at once when Redis cannot be reached, and the guard lets the request through", async () => {
    const limiter = redisLimiter(`redis://127.0.0.1:${await freePort()}`, 500);
    const started = Date.now();
    await expect(limiter.hit(freshKey("down"), 3, 60)).rejects.toThrow();
    await expect(limiter.hit(freshKey("down"), 3, 60)).rejects.toThrow(/not connected/);
    await expect(limiter.peek(freshKey("down"), 3, 60)).rejects.toThrow(/not connected/);
    expect(Date.now() - started).toBeLessThan(2000);
    const env = parseEnv({ RATE_LIMIT_DEPLOYS_PER_MINUTE: "1" });
    const errors: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args.map(String).join(" "));
    try {
      for (let i = 0; i < 3; i++)
        await expect(enforceLimit({ env, limiter }, "deploy", "192.0.2.1")).resolves.toBeUndefined();
    } finally {
      console.error = original;
    }
    expect(errors.filter((l) => l.startsWith("[ratelimit] limiter unavailable"))).toHaveLength(3);
  });

  it("throws when Redis does not answer in time, instead of letting the hit through", async () => {
    // A server that accepts the connection and never answers.
    const sockets: Socket[] = [];
    const tcp = createTcpServer((s) => void sockets.push(s));
    await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
    try {
      const limiter = redisLimiter(`redis://127.0.0.1:${(tcp.address() as AddressInfo).port}`, 300);
      const started = Date.now();
      await expect(limiter.hit(freshKey("slow"), 3, 60)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      for (const s of sockets) s.destroy();
      tcp.close();
    }
  });

  it("fails while its Redis is stopped and counts again, on the same budget rules, once it is back", async () => {
    const own = await startRedisServer();
    const limiter = redisLimiter(own.url, 500);
    const key = freshKey("outage");
    await awayFromWindowEdge(60);
    expect((await limiter.hit(key, 2, 60)).ok).toBe(true);
    const port = own.port;
    await own.stop();
    await expect(limiter.hit(key, 2, 60)).rejects.toThrow();
    const back = await startRedisServer({ port });
    try {
      // The client reconnects on its own (backoff up to 2 s); the restarted server is empty.
      let result;
      for (let i = 0; i < 60 && !result; i++) {
        result = await limiter.hit(key, 2, 60).catch(() => undefined);
        if (!result) await sleep(100);
      }
      expect(result).toEqual({ ok: true, retryAfter: 0, remaining: 1 });
      expect((await limiter.hit(key, 2, 60)).ok).toBe(true);
      expect((await limiter.hit(key, 2, 60)).ok).toBe(false);
    } finally {
      await back.stop();
    }
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
