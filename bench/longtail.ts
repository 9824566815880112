// longtail (issue 43): one drop's 10 KB page against the 10 KB pages of 5,000 drops chosen at
// random per request (wrk with a Lua script picking the Host), in one server on PostgreSQL,
// with the database's committed transactions per request (pg_stat_database xact_commit); and
// (issue 55) the same 5,000 drops with half the requests on their version preview hosts
// (`<slug>---v1`, each its own cached manifest), so 10,000 hosts in all.
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { startPgServer } from "../tests/support/pg-server";
import { cpuTimes, deploy, dropHost, startBenchApp } from "./app";
import { page10k, type ServedSite } from "./site";
import { CONNECTIONS, DURATION, fmt, list, median, parseWrk, THREADS, times, type WrkResult } from "./wrk";

const run = promisify(execFile);
const DROPS = Number(process.env.BENCH_LONGTAIL_DROPS ?? 5000);

async function wrkScript(port: number, script: string, seconds: string): Promise<WrkResult> {
  const args = [`-t${THREADS}`, `-c${CONNECTIONS}`, `-d${seconds}s`, "--latency", "-s", script];
  const { stdout } = await run("wrk", [...args, `http://127.0.0.1:${port}/index.html`], { maxBuffer: 1 << 20 });
  return parseWrk(stdout);
}

export async function longtailSection(work: string, _site: ServedSite): Promise<string[]> {
  const pg = await startPgServer();
  const dataDir = path.join(work, "data-longtail");
  let app = await startBenchApp(dataDir, { DATABASE_URL: pg.url });
  const { Pool } = await import("pg");
  const pool = new Pool({ connectionString: pg.url, max: 1 });
  const commits = async () => {
    // Backends report their counts at most once a second: wait for them first.
    await new Promise((r) => setTimeout(r, 1500));
    const { rows } = await pool.query<{ n: string }>(
      "select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()",
    );
    return Number(rows[0]!.n);
  };
  try {
    const hosts: string[] = [];
    const previews: string[] = [];
    for (let i = 0; i < DROPS; i += 8) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(8, DROPS - i) }, (_, j) =>
          deploy(app, { "index.html": page10k(`drop ${i + j}`) }),
        ),
      );
      hosts.push(...batch.map((d) => dropHost(app, d.slug)));
      previews.push(...batch.map((d) => dropHost(app, `${d.slug}---v1`)));
    }
    const probe = await app.request(previews[0]!, "/index.html");
    if (probe.status !== 200 || !probe.text.includes("<title>drop 0</title>"))
      throw new Error(`${previews[0]} does not serve drop 0's page: ${probe.status}`);
    const one = path.join(work, "longtail-one.lua");
    const many = path.join(work, "longtail-many.lua");
    await writeFile(one, `wrk.headers["Host"] = "${hosts[0]}"\n`);
    await writeFile(
      many,
      `local hosts = {${hosts.map((h) => `"${h}"`).join(",")}}\n` +
        `request = function() return wrk.format("GET", "/index.html", {["Host"] = hosts[math.random(#hosts)]}) end\n`,
    );
    // Half the requests on a preview host: a drop at random, then its live or its version's host.
    const mixed = path.join(work, "longtail-mixed.lua");
    await writeFile(
      mixed,
      `local hosts = {${hosts.map((h) => `"${h}"`).join(",")}}\n` +
        `local previews = {${previews.map((h) => `"${h}"`).join(",")}}\n` +
        `request = function() local i = math.random(#hosts); local h = hosts[i]; if math.random(2) == 1 then h = previews[i] end; ` +
        `return wrk.format("GET", "/index.html", {["Host"] = h}) end\n`,
    );
    // Every host in turn (not at random), live and preview: a warm-up that leaves no host unasked.
    const all = [...hosts, ...previews];
    const each = path.join(work, "longtail-each.lua");
    await writeFile(
      each,
      `local hosts = {${all.map((h) => `"${h}"`).join(",")}}\nlocal i = 0\n` +
        `request = function() i = i + 1; return wrk.format("GET", "/index.html", {["Host"] = hosts[(i % #hosts) + 1]}) end\n`,
    );
    const warm = () => wrkScript(app.port, each, String(Math.max(3, Math.ceil(all.length / 500))));
    // cpuUs: the server's CPU time (user and system, /proc) per request of the run, which moves
    // far less than req/s when other work loads the machine.
    type Measured = { r: WrkResult; perRequest: number; cpuUs: number };
    const measured = async (script: string): Promise<Measured> => {
      await wrkScript(app.port, script, "1");
      const before = await commits();
      const cpu = cpuTimes(app.proc.pid!).all;
      const r = await wrkScript(app.port, script, DURATION);
      const cpuUs = ((cpuTimes(app.proc.pid!).all - cpu) * 1000) / r.requests;
      return { r, perRequest: ((await commits()) - before - 1) / r.requests, cpuUs };
    };
    // Every drop asked first, as a long tail's steady state has them (its manifests and pages loaded):
    // a cold process loads about a thousand manifests a second.
    await warm();
    // Three alternating rounds (one drop, the long tail, the long tail half on preview hosts), each
    // long tail shown with the round of its median ratio to one drop: a burst of load elsewhere on
    // the machine then hits every side alike.
    const pairs: { single: Measured; tail: Measured; half: Measured }[] = [];
    for (let i = 0; i < 3; i++)
      pairs.push({ single: await measured(one), tail: await measured(many), half: await measured(mixed) });
    const ratios = pairs.map((p) => p.tail.r.rps / p.single.r.rps);
    const { single, tail } = pairs[ratios.indexOf(median(ratios))]!;
    const halfRatios = pairs.map((p) => p.half.r.rps / p.single.r.rps);
    const halfRound = pairs[halfRatios.indexOf(median(halfRatios))]!;
    const cpu = (side: "single" | "tail" | "half") => `${median(pairs.map((p) => p[side].cpuUs)).toFixed(0)} µs`;
    // The same long tail with the view counts off (STATS=0): the serve path alone.
    // On the same port: the drops' hosts name it (the serve domain is localhost:<port>).
    const port = app.port;
    await app.stop();
    app = await startBenchApp(dataDir, { DATABASE_URL: pg.url, STATS: "0" }, { port });
    await warm();
    const uncounted = await measured(many);
    const rows = [
      "",
      `Long tail: the 10 KB page of one drop, and of ${DROPS.toLocaleString("en-US")} drops chosen at random per request (wrk Lua script), one server on PostgreSQL 15; transactions per request from pg_stat_database`,
      "",
      "| scenario | dropsite (built app) | ÷ one drop | database transactions per request | server CPU per request (median of rounds) |",
      "|---|---|---|---|---|",
      `| one drop | ${fmt(single.r)} | 1.00× | ${single.perRequest.toFixed(4)} | ${cpu("single")} |`,
      `| ${DROPS.toLocaleString("en-US")} drops at random | ${fmt(tail.r)} | ${times(tail.r.rps / single.r.rps)} (p99 ${times(tail.r.p99ms / single.r.p99ms)}; pairs: ${list(ratios)}; targets ≥ 0.8×, p99 ≤ 2×) | ${tail.perRequest.toFixed(4)} (target ≤ 0.01) | ${cpu("tail")} |`,
      `| ${DROPS.toLocaleString("en-US")} drops at random, half the requests on their preview host (\`<slug>---v1\`) | ${fmt(halfRound.half.r)} | ${times(halfRound.half.r.rps / halfRound.single.r.rps)} (p99 ${times(halfRound.half.r.p99ms / halfRound.single.r.p99ms)}; rounds: ${list(halfRatios)}; targets ≥ 0.8×, p99 ≤ 2×) | ${halfRound.half.perRequest.toFixed(4)} (target ≤ 0.01) | ${cpu("half")} (÷ the long tail's, rounds: ${list(pairs.map((p) => p.half.cpuUs / p.tail.cpuUs))}) |`,
      `| ${DROPS.toLocaleString("en-US")} drops at random, view counts off (STATS=0) | ${fmt(uncounted.r)} | ${times(uncounted.r.rps / single.r.rps)} | ${uncounted.perRequest.toFixed(4)} | ${uncounted.cpuUs.toFixed(0)} µs |`,
    ];
    console.error(rows.slice(-4).join("\n"));
    return rows;
  } finally {
    await pool.end();
    await app.stop();
    await pg.stop();
  }
}
