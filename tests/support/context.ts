import { mkdtemp, rm } from "node:fs/promises";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseEnv, resetEnv } from "@/lib/env";
import { createContext, setContext, type AppContext, type ContextOverrides } from "@/lib/context";
import { startPgServer, type PgServer } from "./pg-server";
import { startBlobStandin, type BlobStandin } from "./blob-standin";
import { startUpstashStandin, type UpstashStandin } from "./upstash-standin";
import { MemoryRateLimiter } from "@/lib/ratelimit/memory";
import type { RateLimiter } from "@/lib/ratelimit/types";
import { registerSecretVars } from "./secrets";

// A real application context for handler tests: PGlite and the filesystem store in a temp dir
// (or whatever DATABASE_URL / storage the caller passes), a controllable clock.

export interface TestContext {
  ctx: AppContext;
  dataDir: string;
  /**
   * Set when the suite runs on the hosted stack (TEST_STACK=hosted): PostgreSQL, the Blob
   * stand-in, and the Upstash stand-in that the context's rate limiter talks to.
   */
  hosted?: { pg: PgServer; blob: BlobStandin; upstash: UpstashStandin; limiter: RateLimiter };
  clock: { now: number; advance(seconds: number): void };
  close(): Promise<void>;
}

export const TEST_BASE_URL = "http://localhost:3000";
export const TEST_SERVE_DOMAIN = "drops.localhost:3000";

/**
 * The suite's context, opened in beforeAll and closed in afterAll (with `freshLimiter`, a fresh
 * rate limiter before each test too). The returned object stands for the context once opened:
 * use it in hooks and tests, not at the top level of the file. `vars` given as a function is
 * read when the suite starts (after earlier beforeAll hooks, e.g. a stand-in's address).
 */
export function suiteContext(
  vars: Record<string, string> | (() => Record<string, string>) = {},
  opts: { freshLimiter?: boolean } = {},
): TestContext {
  let current: TestContext | undefined;
  beforeAll(async () => {
    current = await makeTestContext(typeof vars === "function" ? vars() : vars);
  });
  afterAll(async () => {
    await current?.close();
  });
  if (opts.freshLimiter) {
    beforeEach(async () => {
      await freshLimiter(opened());
    });
  }
  const opened = (): TestContext => {
    if (!current) throw new Error("The test context opens in beforeAll: use it in hooks and tests.");
    return current;
  };
  return new Proxy({} as TestContext, { get: (_, key) => Reflect.get(opened(), key) });
}

/**
 * With TEST_STACK=hosted (a vitest project), the same suites run on a real PostgreSQL server
 * through node-postgres and on the Vercel Blob adapter against the Blob stand-in.
 */
export async function startHostedStack(): Promise<{ pg: PgServer; blob: BlobStandin; vars: Record<string, string> }> {
  const [pg, blob] = await Promise.all([startPgServer(), startBlobStandin()]);
  // The Blob SDK's own variables.
  process.env.VERCEL_BLOB_API_URL = blob.apiUrl;
  process.env.VERCEL_BLOB_RETRIES = "0";
  return {
    pg,
    blob,
    vars: { DATABASE_URL: pg.url, BLOB_READ_WRITE_TOKEN: blob.token, VERCEL_BLOB_API_URL: blob.apiUrl },
  };
}

export async function makeTestContext(
  vars: Record<string, string> = {},
  overrides: ContextOverrides = {},
): Promise<TestContext> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-test-"));
  const hosted = process.env.TEST_STACK === "hosted" ? await startHostedStack() : undefined;
  // On the hosted stack the routes' rate limits go through @upstash/ratelimit, configured as in
  // production (UPSTASH_REDIS_REST_URL/TOKEN), against the Upstash stand-in.
  const upstash = hosted ? await startUpstashStandin() : undefined;
  const upstashVars = upstash ? { UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: upstash.token } : {};
  const source = {
    BASE_URL: TEST_BASE_URL,
    SERVE_DOMAIN: TEST_SERVE_DOMAIN,
    DATA_DIR: dataDir,
    NODE_ENV: "test",
    ...hosted?.vars,
    ...upstashVars,
    ...vars,
  };
  registerSecretVars(source);
  // The code under test reads configuration through env(); point it at this context's values.
  for (const [k, v] of Object.entries(source)) process.env[k] = v;
  resetEnv();
  const clock = {
    now: Date.parse("2026-11-01T12:00:00Z"),
    advance(seconds: number) {
      clock.now += seconds * 1000;
    },
  };
  const ctx = await createContext(parseEnv(source), { now: () => clock.now, ...overrides });
  setContext(ctx);
  return {
    ctx,
    dataDir,
    hosted: hosted && upstash && { pg: hosted.pg, blob: hosted.blob, upstash, limiter: ctx.limiter },
    clock,
    async close() {
      setContext(undefined);
      await ctx.dbHandle.close();
      await hosted?.pg.stop();
      await hosted?.blob.close();
      await upstash?.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Gives the test a limiter with nothing counted yet: on the hosted stack the context's Upstash
 * limiter with its Redis emptied, else a new in-process limiter on the test clock.
 */
export async function freshLimiter(t: TestContext): Promise<void> {
  if (t.hosted) {
    t.ctx.limiter = t.hosted.limiter;
    await t.hosted.upstash.redis("FLUSHDB");
  } else {
    t.ctx.limiter = clockedLimiter(t);
  }
}

/**
 * An in-process limiter on the test clock, for the tests that move time through a rate window
 * (the Upstash limiter counts real time); on either stack.
 */
export function clockedLimiter(t: TestContext): RateLimiter {
  return new MemoryRateLimiter(() => t.clock.now);
}

/**
 * For a test that counts a limit's requests exactly (N allowed, the next one 429) on the hosted
 * stack: @upstash/ratelimit's sliding window rounds the previous minute's count down, so a test
 * that crosses a minute boundary could be allowed one request more. Waits, when less than
 * `seconds` are left in the current minute, until the next one starts. No wait on the embedded
 * stack, whose limiter runs on the test clock.
 */
export async function clearOfMinuteEdge(t: TestContext, seconds = 15): Promise<void> {
  if (!t.hosted) return;
  const left = 60_000 - (Date.now() % 60_000);
  if (left < seconds * 1000) await new Promise((r) => setTimeout(r, left + 100));
}

/** A Request to the app host. */
export function apiRequest(pathAndQuery: string, init: RequestInit & { ip?: string } = {}): Request {
  const headers = new Headers(init.headers);
  if (!headers.has("x-dropsite-socket-ip")) headers.set("x-dropsite-socket-ip", init.ip ?? "203.0.113.7");
  return new Request(`${TEST_BASE_URL}${pathAndQuery}`, { ...init, headers });
}

/** A Request to a drop host, as the serve route receives it. */
export function dropRequest(label: string, pathname: string, init: RequestInit = {}): Request {
  const headers = new Headers(init.headers);
  headers.set("host", `${label}.${TEST_SERVE_DOMAIN}`);
  return new Request(`http://${label}.${TEST_SERVE_DOMAIN}${pathname}`, { ...init, headers });
}

/** Two application contexts sharing one PostgreSQL server and one data dir, as two instances of a deployment. */
export interface TwoInstances {
  a: AppContext;
  b: AppContext;
  /** Moves both instances' clock forward. */
  advance(ms: number): void;
}

/**
 * Registers a suite's two instances on one real PostgreSQL server (started before the suite,
 * stopped after it), with one controllable clock; read `a` and `b` inside the tests. `vars` is
 * read when the suite starts (after the file's own beforeAll, e.g. a DNS stand-in's address).
 */
export function twoInstancesSuite(vars: () => Record<string, string> = () => ({})): TwoInstances {
  let pg: PgServer | undefined;
  let dataDir: string | undefined;
  let now = Date.parse("2026-11-01T12:00:00Z");
  const two = { advance: (ms: number) => void (now += ms) } as TwoInstances;
  beforeAll(async () => {
    pg = await startPgServer();
    dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-two-"));
    const env = parseEnv({
      DATABASE_URL: pg.url,
      DATA_DIR: dataDir,
      BASE_URL: TEST_BASE_URL,
      SERVE_DOMAIN: TEST_SERVE_DOMAIN,
      NODE_ENV: "test",
      ...vars(),
    });
    two.a = await createContext(env, { now: () => now });
    two.b = await createContext(env, { now: () => now });
  });
  afterAll(async () => {
    await two.a?.dbHandle.close();
    await two.b?.dbHandle.close();
    await pg?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  return two;
}
