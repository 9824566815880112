import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseEnv, resetEnv } from "@/lib/env";
import { createContext, setContext, type AppContext, type ContextOverrides } from "@/lib/context";
import { startPgServer, type PgServer } from "./pg-server";
import { startBlobStandin, type BlobStandin } from "./blob-standin";

// A real application context for handler tests: PGlite and the filesystem store in a temp dir
// (or whatever DATABASE_URL / storage the caller passes), a controllable clock.

export interface TestContext {
  ctx: AppContext;
  dataDir: string;
  /** Set when the suite runs on the hosted stack (TEST_STACK=hosted). */
  hosted?: { pg: PgServer; blob: BlobStandin };
  clock: { now: number; advance(seconds: number): void };
  close(): Promise<void>;
}

export const TEST_BASE_URL = "http://localhost:3000";
export const TEST_SERVE_DOMAIN = "drops.localhost:3000";

/**
 * With TEST_STACK=hosted (a vitest project), the same suites run on a real PostgreSQL server
 * through node-postgres and on the Vercel Blob adapter against the Blob stand-in.
 */
export async function startHostedStack(): Promise<{ pg: PgServer; blob: BlobStandin; vars: Record<string, string> }> {
  const [pg, blob] = await Promise.all([startPgServer(), startBlobStandin()]);
  // The Blob SDK's own variables.
  process.env.VERCEL_BLOB_API_URL = blob.apiUrl;
  process.env.VERCEL_BLOB_RETRIES = "0";
  return { pg, blob, vars: { DATABASE_URL: pg.url, BLOB_READ_WRITE_TOKEN: blob.token, VERCEL_BLOB_API_URL: blob.apiUrl } };
}

export async function makeTestContext(vars: Record<string, string> = {}, overrides: ContextOverrides = {}): Promise<TestContext> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-test-"));
  const hosted = process.env.TEST_STACK === "hosted" ? await startHostedStack() : undefined;
  const source = { BASE_URL: TEST_BASE_URL, SERVE_DOMAIN: TEST_SERVE_DOMAIN, DATA_DIR: dataDir, NODE_ENV: "test", ...hosted?.vars, ...vars };
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
    hosted: hosted && { pg: hosted.pg, blob: hosted.blob },
    clock,
    async close() {
      setContext(undefined);
      await ctx.dbHandle.close();
      await hosted?.pg.stop();
      await hosted?.blob.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
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
