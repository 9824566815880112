// pg: the 10 KB page on PostgreSQL, before and after adding 100,000 drops with 1,000,000 file rows.
import path from "node:path";
import { startPgServer, type PgServer } from "../tests/support/pg-server";
import { deploy, dropHost, startBenchApp } from "./app";
import type { ServedSite } from "./site";
import { fmt, measure, times } from "./wrk";

async function bulkRows(pg: PgServer, drops: number, filesPerDrop: number): Promise<void> {
  const { Pool } = await import("pg");
  const pool = new Pool({ connectionString: pg.url });
  try {
    await pool.query(`insert into drops (id, slug, file_count, total_bytes, created_at, updated_at)
      select 'bench-' || i, 'bench' || i, ${filesPerDrop}, ${filesPerDrop * 10240}, now(), now() from generate_series(1, ${drops}) i`);
    await pool.query(`insert into files (drop_id, path, size, sha256, content_type, storage_ref, batch)
      select 'bench-' || i, 'page' || f || '.html', 10240, md5(i::text || '/' || f) || md5(f::text), 'text/html; charset=utf-8', 'bench-' || i || '/b/page' || f || '.html', 'b'
      from generate_series(1, ${drops}) i, generate_series(1, ${filesPerDrop}) f`);
    await pool.query("analyze drops; analyze files");
  } finally {
    await pool.end();
  }
}

export async function pgSection(work: string, { site }: ServedSite): Promise<string[]> {
  const pg = await startPgServer();
  const app = await startBenchApp(path.join(work, "data-pg"), { DATABASE_URL: pg.url });
  try {
    const small = await measure(app.port, dropHost(app, (await deploy(app, site)).slug), "/index.html");
    await bulkRows(pg, 100_000, 10);
    const large = await measure(app.port, dropHost(app, (await deploy(app, site)).slug), "/index.html");
    return [
      "",
      "| 10 KB page on PostgreSQL | result |",
      "|---|---|",
      `| small database (2 drops) | ${fmt(small)} |`,
      `| 100,002 drops, 1,000,002 file rows | ${fmt(large)} (${times(large.rps / small.rps)} the small database) |`,
    ];
  } finally {
    await app.stop();
    await pg.stop();
  }
}
