import { Worker } from "node:worker_threads";

// The embedded PGlite in a worker thread of its own. PGlite is PostgreSQL compiled to
// WebAssembly: every statement runs on the thread that calls it, and in the server's own thread
// a 900-file zip deploy spent 130–190 ms of its main thread in the database, beside the
// inflating, hashing and scanning that thread does meanwhile (docs/benchmarks.md). Here the
// statements run beside that work, as PostgreSQL's own do in its process. The object returned
// has the part of PGlite's interface that drizzle and this app use (query, exec, transaction,
// close), so drizzle's PGlite driver runs over it unchanged; rows, fields and dates cross as
// structured clones, and a database error keeps its fields (code, constraint, detail…), which
// lib/db/errors.ts reads.

/** What drizzle's PGlite driver and lib/db/trace.ts call on a client or a transaction. */
export interface PgliteClient {
  query(sql: string, params?: unknown[], options?: Record<string, unknown>): Promise<unknown>;
  exec(sql: string): Promise<unknown>;
}

export interface PgliteWorker extends PgliteClient {
  transaction<T>(fn: (tx: PgliteClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

type Request =
  | { op: "query"; sql: string; params?: unknown[]; options?: Record<string, unknown>; tx?: number }
  | { op: "exec"; sql: string; tx?: number }
  | { op: "begin" }
  | { op: "end"; tx: number; commit: boolean }
  | { op: "close" };

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: Record<string, unknown> };

// The worker's code, run with `eval` (bundlers, Next's and esbuild's for the data plane, need no
// file of its own for it), without the process's node flags; it imports what it needs, so it
// runs as a script or as a module alike. "@electric-sql/pglite" resolves from the working
// directory, the app's root, as the server's own import of it does.
const THREAD = `(async () => {
const { parentPort, workerData } = await import("node:worker_threads");
const txs = new Map();
const flat = (err) => {
  const e = err instanceof Error ? err : new Error(String(err));
  const out = { message: e.message, name: e.name, stack: e.stack };
  for (const [k, v] of Object.entries(e)) {
    try { structuredClone(v); out[k] = v; } catch {}
  }
  return out;
};
const keep = (value) => value;
// Parsers cross as the type ids whose text is kept as it is (drizzle's, for dates and intervals).
const options = (o) => {
  if (!o || !o.raw) return o;
  const { raw, ...rest } = o;
  return { ...rest, parsers: Object.fromEntries(raw.map((oid) => [oid, keep])) };
};
const start = import("@electric-sql/pglite").then(({ PGlite }) => PGlite.create(workerData.dataDir));
parentPort.on("message", async ({ id, req }) => {
  try {
    const pg = await start;
    let value;
    if (req.op === "query" || req.op === "exec") {
      const on = req.tx === undefined ? pg : txs.get(req.tx)?.tx;
      if (!on) throw new Error("the transaction has ended");
      value = req.op === "query" ? await on.query(req.sql, req.params, options(req.options)) : await on.exec(req.sql);
    } else if (req.op === "begin") {
      // Held open until "end": PGlite commits when the callback resolves, rolls back when it throws.
      value = await new Promise((begun, failed) => {
        let finish;
        const held = new Promise((resolve, reject) => (finish = { resolve, reject }));
        const done = pg.transaction(async (tx) => {
          txs.set(id, { tx, finish, done });
          begun(id);
          await held;
        });
        done.catch((err) => failed(err));
      });
    } else if (req.op === "end") {
      const t = txs.get(req.tx);
      if (!t) throw new Error("the transaction has ended");
      if (req.commit) t.finish.resolve();
      else t.finish.reject(new Error("rolled back"));
      try {
        await t.done;
      } catch (err) {
        if (req.commit) throw err;
      } finally {
        txs.delete(req.tx);
      }
    } else if (req.op === "close") {
      await pg.close();
    }
    parentPort.postMessage({ id, ok: true, value });
  } catch (err) {
    parentPort.postMessage({ id, ok: false, error: flat(err) });
  }
});
})();
`;

/** An Error with the fields the worker sent (a PGlite DatabaseError's code, constraint, detail…). */
function revive(fields: Record<string, unknown>): Error {
  const { message, name, stack, ...rest } = fields;
  const err = Object.assign(new Error(String(message)), rest);
  if (typeof name === "string") err.name = name;
  if (typeof stack === "string") err.stack = stack;
  return err;
}

const PROBE = "\u0000kept?";

/**
 * A query's options as they can cross to the worker: its parsers (functions) as the type ids
 * they keep as text. drizzle passes only such parsers; any other is refused, not dropped.
 */
function crossing(options?: Record<string, unknown>): Record<string, unknown> | undefined {
  const parsers = options?.parsers as Record<string, (value: string) => unknown> | undefined;
  if (!parsers) return options;
  const raw = Object.entries(parsers).map(([oid, parse]) => {
    if (parse(PROBE) !== PROBE) throw new Error(`a PGlite parser other than "keep the text" (type ${oid})`);
    return Number(oid);
  });
  const { parsers: _parsers, ...rest } = options!;
  return { ...rest, raw };
}

/** Opens PGlite on `dataDir` in a worker thread; its first statement waits for it to be ready. */
export function openPgliteWorker(dataDir: string): PgliteWorker {
  const worker = new Worker(THREAD, { eval: true, workerData: { dataDir }, execArgv: [] });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 0;
  let closed: Error | undefined;
  // Referenced only while a call waits: an idle database never keeps the process alive.
  worker.unref();
  const settleAll = (err: Error) => {
    closed ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on("message", (reply: Reply) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (pending.size === 0) worker.unref();
    if (reply.ok) p.resolve(reply.value);
    else p.reject(revive(reply.error));
  });
  worker.on("error", (err) => settleAll(err));
  worker.on("exit", () => settleAll(new Error("PGlite is closed")));

  const call = (req: Request): Promise<unknown> => {
    if (closed) return Promise.reject(new Error("PGlite is closed"));
    const id = ++next;
    if (pending.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, req });
    });
  };
  const client = (tx?: number): PgliteClient => ({
    query: async (sql, params, options) => call({ op: "query", sql, params, options: crossing(options), tx }),
    exec: (sql) => call({ op: "exec", sql, tx }),
  });

  return {
    ...client(),
    async transaction<T>(fn: (tx: PgliteClient) => Promise<T>): Promise<T> {
      const tx = (await call({ op: "begin" })) as number;
      let result: T;
      try {
        result = await fn(client(tx));
      } catch (err) {
        await call({ op: "end", tx, commit: false }).catch(() => undefined);
        throw err;
      }
      await call({ op: "end", tx, commit: true });
      return result;
    },
    async close() {
      if (closed) return;
      try {
        await call({ op: "close" });
      } finally {
        closed = new Error("PGlite is closed");
        await worker.terminate();
      }
    },
  };
}
