import path from "node:path";
import { mkdir } from "node:fs/promises";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import * as schema from "./schema";
import { watchPool } from "../metrics/registry";
import { tracePglite, traceQueries } from "./trace";

// The database client, chosen from configuration behind this one module:
// a Neon host → @neondatabase/serverless (WebSocket Pool), any other postgres:// URL →
// node-postgres, nothing → PGlite under DATA_DIR. Migrations in drizzle/ apply on start.

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export interface DbHandle {
  db: Db;
  kind: "pglite" | "postgres" | "neon";
  close(): Promise<void>;
}

export interface DbOptions {
  databaseUrl?: string;
  dataDir: string;
  /** Directory of drizzle migrations; defaults to ./drizzle of the working directory. */
  migrationsFolder?: string;
  /** Neon only: route the driver's WebSocket through a proxy (used by tests against a local server). */
  neonWsProxy?: (host: string, port: number | string) => string;
}

export function isNeonUrl(url: string): boolean {
  try {
    return /(^|\.)neon\.tech$/.test(new URL(url).hostname) || new URL(url).searchParams.get("driver") === "neon";
  } catch {
    return false;
  }
}

export async function openDb(opts: DbOptions): Promise<DbHandle> {
  const migrationsFolder = opts.migrationsFolder ?? path.join(process.cwd(), "drizzle");
  if (!opts.databaseUrl) {
    const { PGlite } = await import("@electric-sql/pglite");
    const { drizzle } = await import("drizzle-orm/pglite");
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    const dir = path.resolve(opts.dataDir, "pglite");
    await mkdir(dir, { recursive: true });
    const client = await PGlite.create(dir);
    tracePglite(client);
    const db = drizzle(client, { schema });
    await migrate(db, { migrationsFolder });
    return { db: db as unknown as Db, kind: "pglite", close: () => client.close() };
  }
  if (isNeonUrl(opts.databaseUrl)) {
    const { Pool, neonConfig } = await import("@neondatabase/serverless");
    const { drizzle } = await import("drizzle-orm/neon-serverless");
    const { migrate } = await import("drizzle-orm/neon-serverless/migrator");
    const { default: ws } = await import("ws");
    neonConfig.webSocketConstructor = ws;
    if (opts.neonWsProxy) {
      neonConfig.wsProxy = opts.neonWsProxy;
      neonConfig.useSecureWebSocket = false;
      neonConfig.pipelineConnect = false;
    }
    const url = new URL(opts.databaseUrl);
    url.searchParams.delete("driver");
    const pool = new Pool({ connectionString: url.toString(), max: 5, connectionTimeoutMillis: 10_000 });
    guardConnections(pool);
    watchPool(pool);
    const db = drizzle(pool, { schema });
    await migrate(db, { migrationsFolder });
    return { db: db as unknown as Db, kind: "neon", close: () => pool.end() };
  }
  const { Pool } = await import("pg");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  const pool = new Pool({ connectionString: opts.databaseUrl, max: 10, connectionTimeoutMillis: 10_000 });
  guardConnections(pool);
  watchPool(pool);
  traceQueries(pool);
  pool.on("connect", (client) => traceQueries(client as unknown as Parameters<typeof traceQueries>[0]));
  const db = drizzle(pool, { schema });
  await migrate(db, { migrationsFolder });
  return { db: db as unknown as Db, kind: "postgres", close: () => pool.end() };
}

/**
 * A connection the server drops must not crash the process. The pool listens on idle clients
 * only; a client checked out (a transaction in flight) emits its "error" with no listener, an
 * uncaught exception, although the query it ran already rejects with the same error (answered
 * as 503 upstream_unavailable). So every client gets a listener of its own when it connects.
 */
function guardConnections(pool: {
  on(event: "error", l: (err: Error) => void): unknown;
  on(event: "connect", l: (client: { on(event: "error", l: (err: Error) => void): unknown }) => void): unknown;
}): void {
  pool.on("error", (err: Error) => console.error("[db] idle connection error:", err.message));
  pool.on("connect", (client) => {
    client.on("error", (err: Error) => console.error("[db] connection error:", err.message));
  });
}
