import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPgliteWorker, type PgliteWorker } from "@/lib/db/pglite-worker";
import { sqlState } from "@/lib/db/errors";

// The embedded PGlite runs in a worker thread (lib/db/pglite-worker.ts), behind the part of
// PGlite's interface drizzle and the app use. What must hold across the thread: a database
// error keeps its SQLSTATE and fields, a transaction commits when its function resolves and
// rolls back when it throws, values keep their types, a closed database says so, and an idle
// database never keeps a process alive. drizzle over it is exercised by every other suite.

let dir: string;
let pg: PgliteWorker;
const rows = async (sql: string, params?: unknown[]) =>
  ((await pg.query(sql, params)) as { rows: Record<string, unknown>[] }).rows;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "pglite-worker-"));
  pg = openPgliteWorker(dir);
  await pg.exec("create table t (id text primary key, n int, at timestamptz, b bytea, j jsonb)");
});

afterAll(async () => {
  await pg.close();
  await rm(dir, { recursive: true, force: true });
});

describe("PGlite in a worker thread", () => {
  it("answers with values of their types: numbers, dates, bytes, JSON", async () => {
    await pg.query("insert into t values ($1, $2, $3, $4, $5)", [
      "a",
      7,
      new Date("2026-01-02T03:04:05Z"),
      new Uint8Array([1, 2, 3]),
      { k: ["v"] },
    ]);
    const [row] = await rows("select * from t where id = $1", ["a"]);
    expect(row!.n).toBe(7);
    expect(row!.at).toBeInstanceOf(Date);
    expect((row!.at as Date).toISOString()).toBe("2026-01-02T03:04:05.000Z");
    expect(row!.b).toBeInstanceOf(Uint8Array);
    expect([...(row!.b as Uint8Array)]).toEqual([1, 2, 3]);
    expect(row!.j).toEqual({ k: ["v"] });
  });

  it("keeps a database error's SQLSTATE and fields", async () => {
    const err = await pg.query("insert into t (id) values ($1), ($1)", ["dup"]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(sqlState(err)).toBe("23505");
    expect((err as { constraint?: string }).constraint).toBe("t_pkey");
    expect((err as Error).message).toMatch(/duplicate key/);
  });

  it("commits a transaction whose function resolves, and rolls back one that throws", async () => {
    const value = await pg.transaction(async (tx) => {
      await tx.query("insert into t (id, n) values ('c1', 1)");
      const seen = (await tx.query("select n from t where id = 'c1'")) as { rows: unknown[] };
      return seen.rows.length;
    });
    expect(value).toBe(1);
    await expect(
      pg.transaction(async (tx) => {
        await tx.query("insert into t (id, n) values ('r1', 1)");
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await rows("select id from t where id in ('c1', 'r1') order by id")).toEqual([{ id: "c1" }]);
  });

  it("rolls back a transaction whose statement fails, and the error reaches its caller", async () => {
    const err = await pg
      .transaction(async (tx) => {
        await tx.query("insert into t (id) values ('x1')");
        await tx.query("insert into t (id) values ('x1')");
      })
      .catch((e: unknown) => e);
    expect(sqlState(err)).toBe("23505");
    expect(await rows("select id from t where id = 'x1'")).toEqual([]);
  });

  it("refuses a parser other than keeping the text, rather than dropping it", async () => {
    await expect(pg.query("select now()", [], { parsers: { 1184: (v: string) => new Date(v) } })).rejects.toThrow(
      /parser/,
    );
    const kept = (await pg.query("select '2026-01-02T03:04:05Z'::timestamptz as at", [], {
      parsers: { 1184: (v: string) => v },
    })) as { rows: Array<{ at: unknown }> };
    expect(typeof kept.rows[0]!.at).toBe("string");
  });

  it("says it is closed once closed", async () => {
    const other = openPgliteWorker(path.join(dir, "other"));
    expect(await other.query("select 1 as one")).toMatchObject({ rows: [{ one: 1 }] });
    await other.close();
    await expect(other.query("select 1")).rejects.toThrow("PGlite is closed");
  });

  it("does not keep a process alive once idle, though it is never closed", async () => {
    const script = `import { openPgliteWorker } from ${JSON.stringify(path.resolve("lib/db/pglite-worker.ts"))};
      const pg = openPgliteWorker(${JSON.stringify(path.join(dir, "idle"))});
      const { rows } = await pg.query("select 41 + 1 as n");
      console.log(rows[0].n);`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      {
        timeout: 30_000,
      },
    );
    expect(stdout.trim()).toBe("42");
  });
});
