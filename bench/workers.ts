// workers: npm start with WEB_CONCURRENCY=2 beside one worker, both on PostgreSQL (workers need a
// shared database), the same drop and load; wrk runs on the same machine and shares its cores.
import { cpus } from "node:os";
import path from "node:path";
import { startPgServer } from "../tests/support/pg-server";
import { deploy, dropHost, startBenchApp } from "./app";
import type { ServedSite } from "./site";
import { fmt, measure, times, WRK_SETTINGS, type WrkResult } from "./wrk";

export async function workersSection(work: string, { site }: ServedSite): Promise<string[]> {
  const pg = await startPgServer();
  const results: WrkResult[][] = [];
  try {
    for (const count of [1, 2]) {
      const app = await startBenchApp(
        path.join(work, `data-workers-${count}`),
        { DATABASE_URL: pg.url },
        { workers: count },
      );
      try {
        const host = dropHost(app, (await deploy(app, site)).slug);
        results.push([await measure(app.port, host, "/index.html"), await measure(app.port, host, "/photo.jpg")]);
      } finally {
        await app.stop();
      }
    }
  } finally {
    await pg.stop();
  }
  const [one, two] = results as [WrkResult[], WrkResult[]];
  const rows = [
    "",
    `npm start on PostgreSQL, ${WRK_SETTINGS} (wrk on the same ${cpus().length} cores)`,
    "",
    "| scenario | 1 worker | WEB_CONCURRENCY=2 | 2 workers ÷ 1 (req/s) |",
    "|---|---|---|---|",
  ];
  for (const [i, name] of ["10 KB page", "1 MB asset"].entries())
    rows.push(`| ${name} | ${fmt(one[i]!)} | ${fmt(two[i]!)} | ${times(two[i]!.rps / one[i]!.rps)} |`);
  console.error(rows.slice(-2).join("\n"));
  return rows;
}
