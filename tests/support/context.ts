import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseEnv, resetEnv } from "@/lib/env";
import { createContext, setContext, type AppContext, type ContextOverrides } from "@/lib/context";

// A real application context for handler tests: PGlite and the filesystem store in a temp dir
// (or whatever DATABASE_URL / storage the caller passes), a controllable clock.

export interface TestContext {
  ctx: AppContext;
  dataDir: string;
  clock: { now: number; advance(seconds: number): void };
  close(): Promise<void>;
}

export const TEST_BASE_URL = "http://localhost:3000";
export const TEST_SERVE_DOMAIN = "drops.localhost:3000";

export async function makeTestContext(vars: Record<string, string> = {}, overrides: ContextOverrides = {}): Promise<TestContext> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "dropsite-test-"));
  const source = { BASE_URL: TEST_BASE_URL, SERVE_DOMAIN: TEST_SERVE_DOMAIN, DATA_DIR: dataDir, NODE_ENV: "test", ...vars };
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
    clock,
    async close() {
      setContext(undefined);
      await ctx.dbHandle.close();
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
