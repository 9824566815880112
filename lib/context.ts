import path from "node:path";
import { env, type Env } from "./env";
import { openDb, type DbHandle } from "./db/client";
import type { Storage } from "./storage/types";
import { FsStorage } from "./storage/fs";
import { GuardedStorage } from "./storage/guard";
import type { RateLimiter } from "./ratelimit/types";
import { MemoryRateLimiter } from "./ratelimit/memory";
import { wallClock } from "./clock";

// The parts a request needs, built once from configuration. Tests build their own with
// createContext() over real stores in a temp dir and install it with setContext().

export interface AppContext {
  env: Env;
  db: DbHandle["db"];
  dbHandle: DbHandle;
  storage: Storage;
  limiter: RateLimiter;
  /** Milliseconds since the epoch; a test clock can replace it. */
  now: () => number;
}

export interface ContextOverrides {
  storage?: Storage;
  limiter?: RateLimiter;
  now?: () => number;
}

export async function createContext(e: Env, overrides: ContextOverrides = {}): Promise<AppContext> {
  const dbHandle = await openDb({ databaseUrl: e.DATABASE_URL, dataDir: e.DATA_DIR });
  const storage = overrides.storage ?? (await createStorage(e));
  const now = overrides.now ?? wallClock;
  const limiter = overrides.limiter ?? (await createLimiter(e));
  return { env: e, db: dbHandle.db, dbHandle, storage, limiter, now };
}

async function createStorage(e: Env): Promise<Storage> {
  // S3_BUCKET wins over BLOB_READ_WRITE_TOKEN (an install moving off Vercel Blob may keep both).
  // A network store is guarded: known down, it fails fast with 503 (lib/storage/guard.ts).
  if (e.S3_BUCKET) {
    const { S3Storage } = await import("./storage/s3");
    const credentials =
      e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY }
        : undefined;
    return new GuardedStorage(
      new S3Storage({
        bucket: e.S3_BUCKET,
        endpoint: e.S3_ENDPOINT,
        region: e.S3_REGION,
        credentials,
        forcePathStyle: e.S3_FORCE_PATH_STYLE,
      }),
    );
  }
  if (e.BLOB_READ_WRITE_TOKEN) {
    const { BlobStorage } = await import("./storage/blob");
    return new GuardedStorage(new BlobStorage(e.BLOB_READ_WRITE_TOKEN, { apiUrl: e.VERCEL_BLOB_API_URL }));
  }
  // Guarded too, for its metrics (it is never unreachable, so never marked down).
  return new GuardedStorage(new FsStorage(path.resolve(e.DATA_DIR, "blobs")));
}

async function createLimiter(e: Env): Promise<RateLimiter> {
  if (e.REDIS_URL) {
    const { RedisRateLimiter } = await import("./ratelimit/redis");
    return new RedisRateLimiter(e.REDIS_URL);
  }
  if (e.UPSTASH_REDIS_REST_URL && e.UPSTASH_REDIS_REST_TOKEN) {
    const { UpstashRateLimiter } = await import("./ratelimit/upstash");
    return new UpstashRateLimiter(e.UPSTASH_REDIS_REST_URL, e.UPSTASH_REDIS_REST_TOKEN);
  }
  return new MemoryRateLimiter();
}

// Next bundles route handlers, pages and server actions separately, so this module can be
// instantiated more than once in one process. The context (and the one PGlite instance that
// owns DATA_DIR) must be shared, so it lives on globalThis.
const KEY = Symbol.for("dropsite.context");
const slot = globalThis as unknown as Record<symbol, Promise<AppContext> | undefined>;

/** The process-wide context, created on first use. */
export function getContext(): Promise<AppContext> {
  let current = slot[KEY];
  if (!current) {
    current = createContext(env());
    slot[KEY] = current;
    current.catch(() => {
      if (slot[KEY] === current) slot[KEY] = undefined;
    });
  }
  return current;
}

/** Installs a context (tests). */
export function setContext(ctx: AppContext | undefined): void {
  slot[KEY] = ctx ? Promise.resolve(ctx) : undefined;
}
