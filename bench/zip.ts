// zip: a 900-file archive of about 25 MB (a third random binary stored as is, two thirds text
// deflated, as `zip -r` makes them) deployed to the built app, against `unzip -q` of the same
// archive to a folder on the same disk. The server's peak resident memory during each deploy is
// read from /proc (VmHWM, reset before each deploy through clear_refs; polled VmRSS where that is
// not allowed) and set against its resident memory just before.
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { zipSync, type Zippable } from "fflate";
import { startPgServer, type PgServer } from "../tests/support/pg-server";
import { startS3Server, type S3Server } from "../tests/support/s3-server";
import { cpuTimes, makeAccounts, startBenchApp, timedPost, watchPeak } from "./app";
import { mb, prose } from "./site";
import { list, median } from "./wrk";

const run = promisify(execFile);
const RUNS = Number(process.env.BENCH_ZIP_RUNS ?? "5");

function archiveTree(): Zippable {
  const tree: Zippable = {};
  for (let i = 0; i < 900; i++) {
    const dir = `site/d${i % 30}`;
    if (i % 3 === 0) tree[`${dir}/b${i}.bin`] = [new Uint8Array(randomBytes(64 * 1024)), { level: 0 }];
    else tree[`${dir}/t${i}.txt`] = [prose(60 * 1024, i + 1), { level: 6 }];
  }
  return tree;
}

/** A 40-file zip: each server's first deploy, so the code paths are loaded before the measured one. */
function warmUpZip(): Uint8Array {
  const small: Zippable = {};
  for (let i = 0; i < 40; i++) small[`warm/f${i}.txt`] = prose(4096, 500 + i);
  return zipSync(small);
}

/** An unzip's wall time, and its CPU time (user and system, from the shell's `times`). */
async function timeUnzip(zipPath: string, out: string): Promise<{ ms: number; cpuMs: number }> {
  const t0 = performance.now();
  const { stdout } = await run("bash", ["-c", 'unzip -q "$0" -d "$1" && times', zipPath, out]);
  const ms = performance.now() - t0;
  await rm(out, { recursive: true, force: true });
  // `times` prints the shell's own user and system times, then its children's: "0m0.123s 0m0.045s".
  const children = stdout.trim().split("\n").at(-1)!.split(" ");
  const cpuMs = children.reduce((n, t) => {
    const m = /^(\d+)m([\d.]+)s$/.exec(t);
    return n + (m ? (Number(m[1]) * 60 + Number(m[2])) * 1000 : NaN);
  }, 0);
  return { ms, cpuMs };
}

/** A zip deploy by reference, as the CLI sends one: hash, preflight, PUT to the target, deploy; timed from the hash to the answer. */
async function deployZipByReference(
  port: number,
  archive: Uint8Array,
  key: string,
): Promise<{ status: number; text: string; ms: number }> {
  const t0 = performance.now();
  const ref = JSON.stringify({
    zip: { sha256: createHash("sha256").update(archive).digest("hex"), size: archive.byteLength },
  });
  const auth = { "content-type": "application/json", authorization: `Bearer ${key}` };
  const pre = await timedPost(port, "/deploy/preflight", Buffer.from(ref), auth);
  if (pre.status !== 200) return pre;
  const answer = pre.json() as {
    upload_token: string;
    uploads: Array<{ url: string; method: string; headers: Record<string, string> }>;
  };
  for (const u of answer.uploads) {
    const put = await fetch(u.url, { method: u.method, headers: u.headers, body: archive as BodyInit });
    if (put.status >= 300) return { status: put.status, text: await put.text(), ms: performance.now() - t0 };
  }
  const res = await timedPost(port, "/deploy", Buffer.from(ref), { ...auth, "x-upload-token": answer.upload_token });
  return { ...res, ms: performance.now() - t0 };
}

interface Store {
  name: string;
  vars: () => Promise<Record<string, string>>;
  /** The archive goes by reference, as the CLI and the browser page send a zip over 4 MB. */
  byReference?: boolean;
}

interface Pair {
  unzipMs: number;
  deployMs: number;
  /** The same archive deployed again in the same process (to a third account): V8 has compiled the code by then. */
  againMs: number;
  growth: number;
  /** CPU time of the unzip, of the server during the deploy, and of the server's main thread. */
  unzipCpu: number;
  deployCpu: number;
  mainCpu: number;
}

interface ZipRun {
  archive: Uint8Array;
  zipPath: string;
  warmZip: Uint8Array;
  work: string;
}

/**
 * One pair: an unzip, then a deploy, so both see the same load on a shared machine. The deploy
 * runs in a fresh server process, warmed up by a small zip deploy sent the same way (the code paths are loaded),
 * so its memory growth is the archive's and not a previous deploy's heap; it goes to a fresh
 * account, so every content is stored (nothing deduplicated). Then the same archive again in
 * that process, to a third account (timed only): the first large deploy of a process pays for V8
 * compiling its hot code on the second core (300-600 ms of CPU here), a running server's does not.
 */
async function pair(
  z: ZipRun,
  store: Store,
  dataDir: string,
  vars: Record<string, string>,
  keys: [string, string, string],
  i: number,
): Promise<Pair> {
  const app = await startBenchApp(dataDir, vars);
  try {
    // The warm-up takes the measured deploy's own way: by reference it loads the preflight, the
    // upload and the by-reference code too (their first load alone grew the server by 12 MB).
    const warm = store.byReference
      ? await deployZipByReference(app.port, z.warmZip, keys[0])
      : await timedPost(app.port, "/deploy", z.warmZip, {
          "content-type": "application/zip",
          authorization: `Bearer ${keys[0]}`,
        });
    if (warm.status !== 200) throw new Error(`warm-up deploy failed: ${warm.status} ${warm.text}`);
    const unzip = await timeUnzip(z.zipPath, path.join(z.work, `unzipped-${i}`));
    const stop = watchPeak(app.proc.pid!);
    const cpu0 = cpuTimes(app.proc.pid!);
    const res = store.byReference
      ? await deployZipByReference(app.port, z.archive, keys[1])
      : await timedPost(app.port, "/deploy", z.archive, {
          "content-type": "application/zip",
          authorization: `Bearer ${keys[1]}`,
        });
    const cpu1 = cpuTimes(app.proc.pid!);
    const { before, growth } = stop();
    if (res.status !== 200) throw new Error(`zip deploy failed: ${res.status} ${res.text}`);
    // The same archive again, to a third account: a running server's deploy, its code compiled.
    const again = store.byReference
      ? await deployZipByReference(app.port, z.archive, keys[2])
      : await timedPost(app.port, "/deploy", z.archive, {
          "content-type": "application/zip",
          authorization: `Bearer ${keys[2]}`,
        });
    if (again.status !== 200) throw new Error(`second zip deploy failed: ${again.status} ${again.text}`);
    const deployCpu = cpu1.all - cpu0.all;
    const mainCpu = cpu1.main - cpu0.main;
    console.error(
      `${store.name} pair ${i}: unzip ${unzip.ms.toFixed(0)} ms (CPU ${unzip.cpuMs.toFixed(0)}), deploy ${res.ms.toFixed(0)} ms (CPU ${deployCpu}, main thread ${mainCpu}), again ${again.ms.toFixed(0)} ms, peak RSS +${mb(growth)} (before ${mb(before)})`,
    );
    return {
      unzipMs: unzip.ms,
      deployMs: res.ms,
      againMs: again.ms,
      growth,
      unzipCpu: unzip.cpuMs,
      deployCpu,
      mainCpu,
    };
  } finally {
    await app.stop();
  }
}

function storeRows(store: Store, pairs: Pair[], archiveBytes: number): string[] {
  const unzip = pairs.map((p) => p.unzipMs);
  const deploys = pairs.map((p) => p.deployMs);
  const ratios = pairs.map((p) => p.deployMs / p.unzipMs);
  const again = pairs.map((p) => p.againMs);
  const againRatios = pairs.map((p) => p.againMs / p.unzipMs);
  const growth = pairs.map((p) => p.growth);
  const g = Math.max(...growth);
  const how = store.byReference
    ? "preflight, PUT to the bucket, POST /deploy {zip} (pro key)"
    : "POST /deploy (application/zip, pro key)";
  return [
    `| ${store.name}: \`unzip -q\` to a folder | ${median(unzip).toFixed(0)} ms (${list(unzip, 0)}) | |`,
    `| ${store.name}: ${how} | ${median(deploys).toFixed(0)} ms (${list(deploys, 0)}) | |`,
    `| ${store.name}: deploy ÷ unzip, per pair (the process's first large deploy) | ${median(ratios).toFixed(2)}× (${list(ratios)}) | |`,
    `| ${store.name}: the same archive again in that process, to another account | ${median(again).toFixed(0)} ms (${list(again, 0)}) | |`,
    `| ${store.name}: again ÷ unzip, per pair | ${median(againRatios).toFixed(2)}× (${list(againRatios)}) | ${store.byReference ? "" : "≤ 1.5×"} |`,
    `| ${store.name}: CPU time, unzip · server during the deploy (its main thread) | ${median(pairs.map((p) => p.unzipCpu)).toFixed(0)} ms · ${median(pairs.map((p) => p.deployCpu)).toFixed(0)} ms (${median(pairs.map((p) => p.mainCpu)).toFixed(0)} ms) | |`,
    `| ${store.name}: server peak RSS growth during a deploy (largest of ${growth.length}) | ${mb(g)} = ${(g / archiveBytes).toFixed(2)}× the archive (${list(growth.map((x) => x / archiveBytes))}) | < 2× |`,
  ];
}

export async function zipSection(work: string): Promise<string[]> {
  const tree = archiveTree();
  const archive = zipSync(tree);
  const unpacked = Object.values(tree).reduce((n, v) => n + (v as [Uint8Array, unknown])[0].byteLength, 0);
  const z: ZipRun = { archive, zipPath: path.join(work, "site.zip"), warmZip: warmUpZip(), work };
  await writeFile(z.zipPath, archive);
  const rows = [
    "",
    `Zip deploy: ${Object.keys(tree).length} files, archive ${mb(archive.byteLength)}, unpacked ${mb(unpacked)}; ${RUNS} paired runs per store (an unzip, then a deploy to a fresh account in a fresh server process warmed up by a 40-file zip deploy sent the same way, then the same archive again in that process to a third account); medians`,
    "",
    "| measurement | result | target |",
    "|---|---|---|",
  ];
  // The embedded default (PGlite runs in the server's own process, so its memory is counted too),
  // then PostgreSQL in a process of its own: the server's growth without an embedded database.
  // S3 (s3rver on loopback): the archive goes by reference; timed end to end.
  let pg: PgServer | undefined;
  let s3: S3Server | undefined;
  const stores: Store[] = [{ name: "PGlite + filesystem", vars: async () => ({}) }];
  if (process.env.BENCH_SKIP_PG !== "1")
    stores.push({
      name: "PostgreSQL + filesystem",
      vars: async () => ({ DATABASE_URL: (pg ??= await startPgServer()).url }),
    });
  if (process.env.BENCH_SKIP_S3 !== "1")
    stores.push({
      name: "PGlite + S3 (s3rver), zip by reference",
      vars: async () => (s3 ??= await startS3Server()).vars,
      byReference: true,
    });
  try {
    for (const [s, store] of stores.entries()) {
      const vars = await store.vars();
      const dataDir = path.join(work, `data-zip-${s}`);
      const keys = await makeAccounts(dataDir, 3 * RUNS, vars);
      const pairs: Pair[] = [];
      for (let i = 0; i < RUNS; i++)
        pairs.push(await pair(z, store, dataDir, vars, [keys[3 * i]!, keys[3 * i + 1]!, keys[3 * i + 2]!], i));
      rows.push(...storeRows(store, pairs, archive.byteLength));
    }
  } finally {
    await pg?.stop();
    await s3?.close();
  }
  return rows;
}
