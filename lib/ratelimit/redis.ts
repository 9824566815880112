import { createHash } from "node:crypto";
import { createClient } from "redis";
import type { LimitResult, RateLimiter } from "./types";
import { SlidingWindows, type RatelimitStore } from "./upstash";

// Shared limits in a Redis server of one's own (REDIS_URL), through the official `redis` client.
// The algorithm is the Upstash path's, not a copy: the same @upstash/ratelimit sliding window
// (its Lua scripts, keys under the "dropsite" prefix, its results) runs over a small adapter
// that gives the library the four calls it makes (evalsha, eval, get, set). So a key names one
// budget exactly as on Upstash and in memory, and the contract suite runs against all three.
//
// When the store is down the limiter throws, as the Upstash one does, and the guard lets the
// request through with a log line (lib/ratelimit/guard.ts): commands are not queued while the
// client is offline (they fail at once), and a server that does not answer within the timeout
// fails the hit. The client reconnects on its own, with backoff.

export interface RedisRateLimiterOptions {
  /** How long a hit may wait for Redis before it throws. */
  timeoutMs?: number;
}

const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");

/**
 * `#!lua flags=allow-key-locking[,others]` → `#!lua[ flags=others]`; other scripts unchanged.
 * @upstash/ratelimit's scripts carry a flag only Upstash knows; Redis 7 refuses unknown flags.
 */
export function rewriteShebang(script: string): string {
  const m = /^#!lua([^\n]*)/.exec(script);
  if (!m) return script;
  const flagsMatch = /flags=(\S*)/.exec(m[1] ?? "");
  if (!flagsMatch) return script;
  const kept = (flagsMatch[1] ?? "").split(",").filter((f) => f && f !== "allow-key-locking");
  const head = kept.length ? `#!lua flags=${kept.join(",")}` : "#!lua";
  return head + script.slice(m[0].length);
}

type Client = ReturnType<typeof createClient>;
type Arg = string | number;

/** What @upstash/ratelimit calls on its `redis`, answered by a node-redis client. */
class ScriptRunner {
  /** The library's SHA1 of a script → the SHA1 Redis knows it by (after the shebang rewrite). */
  private readonly shas = new Map<string, string>();

  constructor(private readonly client: () => Promise<Client>) {}

  async evalsha(hash: string, keys: string[], args: Arg[]): Promise<unknown> {
    const sha = this.shas.get(hash);
    // Unknown here: the library answers a NOSCRIPT error with eval(script), which loads it.
    if (!sha) throw new Error("NOSCRIPT script not loaded by this client");
    return (await this.client()).evalSha(sha, { keys, arguments: args.map(String) });
  }

  async eval(script: string, keys: string[], args: Arg[]): Promise<unknown> {
    const rewritten = rewriteShebang(script);
    const result = await (await this.client()).eval(rewritten, { keys, arguments: args.map(String) });
    this.shas.set(sha1(script), sha1(rewritten));
    return result;
  }

  async get(key: string): Promise<string | null> {
    return (await this.client()).get(key);
  }

  async set(key: string, value: string): Promise<string | null> {
    return (await this.client()).set(key, value);
  }
}

export class RedisRateLimiter implements RateLimiter {
  readonly kind = "redis";
  private readonly client: Client;
  private readonly windows: SlidingWindows;
  private opening: Promise<unknown> | undefined;
  private waiting: Promise<void> | undefined;
  /** The connection failed since it was last ready: hits fail at once until it is back. */
  private down = false;

  constructor(url: string, opts: RedisRateLimiterOptions = {}) {
    const timeoutMs = opts.timeoutMs ?? 3000;
    this.client = createClient({
      url,
      // A hit sits on a request's path: never wait in a queue for a connection that is down.
      disableOfflineQueue: true,
      socket: { connectTimeout: timeoutMs, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 2000) },
    });
    this.client.on("error", (err: unknown) => {
      if (!this.down) console.error("[ratelimit] Redis unavailable:", err instanceof Error ? err.message : err);
      this.down = true;
    });
    this.client.on("ready", () => {
      if (this.down) console.error("[ratelimit] Redis connected again");
      this.down = false;
    });
    // The library's type is @upstash/redis's client; it calls only what ScriptRunner has.
    this.windows = new SlidingWindows(
      new ScriptRunner(() => this.connected()) as unknown as RatelimitStore,
      "Redis",
      timeoutMs,
    );
  }

  hit(key: string, max: number, windowSeconds: number): Promise<LimitResult> {
    return this.windows.hit(key, max, windowSeconds);
  }

  peek(key: string, max: number, windowSeconds: number): Promise<LimitResult> {
    return this.windows.peek(key, max, windowSeconds);
  }

  async shared(key: string, fresh: string, ttlSeconds: number): Promise<string> {
    const client = await this.connected();
    await client.set(key, fresh, { NX: true, EX: ttlSeconds });
    return (await client.get(key)) ?? fresh;
  }

  /** Closes the connection (tests; a server keeps it for its lifetime). */
  async close(): Promise<void> {
    if (this.client.isOpen) this.client.destroy();
  }

  private async connected(): Promise<Client> {
    if (this.client.isReady) return this.client;
    if (this.down) throw new Error("Redis rate limiter is not connected");
    // The first hits open the connection and wait for it together (bounded by the library's timeout).
    this.opening ??= this.client.connect().catch(() => undefined);
    this.waiting ??= new Promise<void>((resolve, reject) => {
      const onReady = () => {
        this.client.off("error", onError);
        resolve();
      };
      const onError = (err: unknown) => {
        this.client.off("ready", onReady);
        reject(err instanceof Error ? err : new Error(String(err)));
      };
      this.client.once("ready", onReady);
      this.client.once("error", onError);
    }).finally(() => {
      this.waiting = undefined;
    });
    await this.waiting;
    return this.client;
  }
}
