// versions: a named drop replaced 100 times (the pro plan keeps 100 versions) against a named drop
// with one version, the same 10 KB page; then the time from a rollback to the first byte of the
// old version, in the app that took it and in a second app on the same PostgreSQL.
import path from "node:path";
import type { RunningApp } from "../tests/support/app-server";
import { startPgServer } from "../tests/support/pg-server";
import { limits } from "../lib/plans";
import { appHost, deploy, dropHost, makeAccounts, startBenchApp } from "./app";
import { page10k } from "./site";
import { fmt, inRounds, list, measure, median, medianRound, times } from "./wrk";

const pageOf = (v: number) => page10k(`v${v}`);
const textOf = (v: number) => new TextDecoder().decode(pageOf(v));

/** Deploys (or replaces) the key's named drop with version v's page. */
const deployNamed = (app: RunningApp, key: string, name: string, v: number) =>
  deploy(app, { "index.html": pageOf(v) }, { key, name });

/**
 * Rolls the drop to `version` through `writer`, then asks `reader` for the page until it answers
 * version `version`'s page: milliseconds from sending the rollback to the first byte of the right answer.
 */
async function rollbackToFirstByte(
  writer: RunningApp,
  reader: RunningApp,
  key: string,
  slug: string,
  version: number,
  expected: string,
): Promise<number> {
  const t0 = performance.now();
  const res = await writer.request(appHost(writer), `/drops/${slug}/rollback`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ version }),
  });
  if (res.status !== 200) throw new Error(`rollback failed: ${res.status} ${res.text}`);
  for (;;) {
    const page = await reader.request(dropHost(reader, slug), "/index.html");
    if (page.text === expected) return performance.now() - t0;
    if (performance.now() - t0 > 60_000)
      throw new Error(`the rollback never showed: ${page.status} ${page.text.slice(0, 200)}`);
  }
}

const spread = (xs: number[]) => `median ${median(xs).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;

/** One version against a hundred, and rollbacks in the same process: back to version 1 and forward to the last, ten times each. */
async function onPglite(work: string): Promise<string[]> {
  const dataDir = path.join(work, "data-versions");
  const [key] = await makeAccounts(dataDir, 1);
  const app = await startBenchApp(dataDir);
  try {
    const one = await deployNamed(app, key!, "one-version", 1);
    let hundred = { slug: "", version: 0 };
    for (let v = 1; v <= limits.pro.versionsKept; v++) hundred = await deployNamed(app, key!, "hundred-versions", v);
    if (hundred.version !== limits.pro.versionsKept)
      throw new Error(`expected version ${limits.pro.versionsKept}, got ${hundred.version}`);
    const rounds = await inRounds(3, {
      single: () => measure(app.port, dropHost(app, one.slug), "/index.html"),
      many: () => measure(app.port, dropHost(app, hundred.slug), "/index.html"),
    });
    const { round, ratio, ratios } = medianRound(rounds, (r) => r.many.rps / r.single.rps);
    const rollbacks: number[] = [];
    for (let i = 0; i < 10; i++) {
      rollbacks.push(await rollbackToFirstByte(app, app, key!, hundred.slug, 1, textOf(1)));
      rollbacks.push(await rollbackToFirstByte(app, app, key!, hundred.slug, hundred.version, textOf(hundred.version)));
    }
    return [
      "",
      `Versions: a named drop replaced ${hundred.version} times (the pro plan keeps ${limits.pro.versionsKept} versions) against a named drop with one version, the same 10 KB page; three alternating pairs, the pair with the median ratio shown`,
      "",
      "| scenario | result |",
      "|---|---|",
      `| 10 KB page, drop with 1 version | ${fmt(round.single)} |`,
      `| 10 KB page, drop with ${hundred.version} versions | ${fmt(round.many)}, ${times(ratio)} (pairs: ${list(ratios)}; target within 5%) |`,
      `| rollback → first byte of the old version, same process (20 rollbacks) | ${spread(rollbacks)} |`,
    ];
  } finally {
    await app.stop();
  }
}

/** Two processes on one PostgreSQL: the rollback goes to one, the reader asks the other. */
async function acrossProcesses(work: string): Promise<string[]> {
  const pg = await startPgServer();
  const vars = { DATABASE_URL: pg.url };
  // One data directory: the bytes are on its disk (shared storage), the rows in PostgreSQL.
  const shared = path.join(work, "data-versions-pg");
  const [key] = await makeAccounts(shared, 1, vars);
  const a = await startBenchApp(shared, vars);
  const b = await startBenchApp(shared, vars);
  try {
    const { slug } = await deployNamed(a, key!, "two-processes", 1);
    const v2 = await deployNamed(a, key!, "two-processes", 2);
    const across: number[] = [];
    const same: number[] = [];
    for (let i = 0; i < 5; i++) {
      // B has the drop's manifest in its cache before each rollback, as a busy server would.
      await b.request(dropHost(b, slug), "/index.html");
      across.push(await rollbackToFirstByte(a, b, key!, slug, 1, textOf(1)));
      await b.request(dropHost(b, slug), "/index.html");
      across.push(await rollbackToFirstByte(a, b, key!, slug, v2.version, textOf(2)));
      same.push(await rollbackToFirstByte(a, a, key!, slug, 1, textOf(1)));
      same.push(await rollbackToFirstByte(a, a, key!, slug, v2.version, textOf(2)));
    }
    return [
      `| rollback → first byte, PostgreSQL, same process (10 rollbacks) | ${spread(same)} |`,
      `| rollback → first byte, PostgreSQL, read from a second process (10 rollbacks) | ${spread(across)} |`,
    ];
  } finally {
    await a.stop();
    await b.stop();
    await pg.stop();
  }
}

export async function versionsSection(work: string): Promise<string[]> {
  const rows = await onPglite(work);
  console.error(rows.slice(-3).join("\n"));
  if (process.env.BENCH_SKIP_PG === "1") return rows;
  const pgRows = await acrossProcesses(work);
  console.error(pgRows.join("\n"));
  return [...rows, ...pgRows];
}
