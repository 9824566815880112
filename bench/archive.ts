// archive: a drop of 201 MB (random binary, stored, and prose, deflated while the archive
// stays within the deploy's ratio) taken back out as a zip (GET /drops/{slug}/archive) against
// `zip -r -q` of the same files on the same disk, and the server's resident memory while the
// archive streams: it should stay bounded (a chunk or two of each file), not grow with the archive.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import { zipSync, type Zippable } from "fflate";
import type { RunningApp } from "../tests/support/app-server";
import { appHost, makeAccounts, startBenchApp, timedPost, watchPeak } from "./app";
import { mb, prose } from "./site";
import { median } from "./wrk";

const run = promisify(execFile);
const RUNS = Number(process.env.BENCH_ARCHIVE_RUNS ?? "3");
/** Three writes (a named deploy, two appends) of 67 files each: under the pro plan's 100 MB zip cap. */
const PARTS = 3;
const PART_FILES = 67;
const FILE_BYTES = 1024 * 1024;

/** One part of the drop: two thirds random binary (stored), one third prose (deflated). */
function part(n: number): Zippable {
  const tree: Zippable = {};
  for (let i = 0; i < PART_FILES; i++) {
    // Two folders at the top: a zip whose files share one folder is unpacked without it.
    const name = `p${n}${i % 2 ? "a" : "b"}/d${i % 9}/f${i}`;
    if (i % 3 === 2) tree[`${name}.txt`] = [prose(FILE_BYTES, 1000 * n + i), { level: 6 }];
    else tree[`${name}.bin`] = [new Uint8Array(randomBytes(FILE_BYTES)), { level: 0 }];
  }
  return tree;
}

/** Streams the archive to nowhere: its bytes and the time from the request to the last byte. */
function download(app: RunningApp, slug: string, key: string): Promise<{ bytes: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: app.port,
        path: `/drops/${slug}/archive`,
        headers: { host: appHost(app), authorization: `Bearer ${key}` },
      },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`archive answered ${res.statusCode}`));
        let bytes = 0;
        res.on("data", (c: Buffer) => (bytes += c.byteLength));
        res.on("end", () => resolve({ bytes, ms: performance.now() - t0 }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Writes the files of `trees` under `dir`, as a person's folder of the site. */
async function writeTree(dir: string, trees: Zippable[]): Promise<void> {
  for (const tree of trees)
    for (const [name, value] of Object.entries(tree)) {
      const file = path.join(dir, name);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, (value as [Uint8Array, unknown])[0]);
    }
}

async function timeZip(dir: string, out: string): Promise<number> {
  const t0 = performance.now();
  await run("zip", ["-r", "-q", out, "."], { cwd: dir });
  const ms = performance.now() - t0;
  await rm(out, { force: true });
  return ms;
}

export async function archiveSection(work: string): Promise<string[]> {
  const parts = Array.from({ length: PARTS }, (_, i) => part(i + 1));
  const total = parts.reduce(
    (n, t) => n + Object.values(t).reduce((m, v) => m + (v as [Uint8Array, unknown])[0].byteLength, 0),
    0,
  );
  const dataDir = path.join(work, "archive-data");
  const [key] = await makeAccounts(dataDir, 1);
  const app = await startBenchApp(dataDir);
  const folder = path.join(work, "archive-folder");
  let hasZip = true;
  try {
    await run("zip", ["-v"]);
  } catch {
    hasZip = false;
  }
  try {
    const headers = { "content-type": "application/zip", authorization: `Bearer ${key}` };
    const first = await timedPost(app.port, "/deploy?name=archive-bench", zipSync(parts[0]!), headers);
    if (first.status !== 200) throw new Error(`deploy failed: ${first.status} ${first.text}`);
    const { slug } = first.json() as { slug: string };
    for (const more of parts.slice(1)) {
      const appended = await timedPost(app.port, `/deploy/${slug}`, zipSync(more), headers);
      if (appended.status !== 200) throw new Error(`append failed: ${appended.status} ${appended.text}`);
    }
    await writeTree(folder, parts);
    // A first download loads the route's code; then RUNS measured ones, each beside a zip -r.
    await download(app, slug, key!);
    const served: { bytes: number; ms: number; before: number; growth: number }[] = [];
    const zipped: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const stop = watchPeak(app.proc.pid!);
      const d = await download(app, slug, key!);
      served.push({ ...d, ...stop() });
      if (hasZip) zipped.push(await timeZip(folder, path.join(work, "archive.zip")));
    }
    const ms = median(served.map((s) => s.ms));
    const rate = (bytes: number, t: number) => `${(bytes / 1024 / 1024 / (t / 1000)).toFixed(0)} MB/s`;
    const growth = Math.max(...served.map((s) => s.growth));
    const rows = [
      "",
      `Archive: a drop of ${PARTS * PART_FILES} files, ${mb(total)} (two thirds random binary, a third prose), taken out with GET /drops/{slug}/archive against \`zip -r -q\` of the same folder on the same disk; ${RUNS} runs each, medians`,
      "",
      "| measurement | result | target |",
      "|---|---|---|",
      `| archive, served (${mb(served[0]!.bytes)}) | ${ms.toFixed(0)} ms (${rate(total, ms)}) | |`,
    ];
    if (hasZip) {
      const z = median(zipped);
      rows.push(
        `| \`zip -r -q\` of the folder | ${z.toFixed(0)} ms (${rate(total, z)}) | |`,
        `| archive ÷ zip -r (time) | ${(ms / z).toFixed(2)}× | reported beside zip -r |`,
      );
    } else rows.push("| `zip -r -q` of the folder | (zip is not installed) | |");
    rows.push(
      `| server's resident memory before | ${mb(served[0]!.before)} | |`,
      `| its largest growth while an archive streamed | ${mb(growth)} (${((growth / total) * 100).toFixed(1)}% of the archive) | bounded, not proportional to the archive |`,
    );
    console.error(rows.slice(3).join("\n"));
    return rows;
  } finally {
    await app.stop();
    await rm(folder, { recursive: true, force: true });
    await rm(dataDir, { recursive: true, force: true });
  }
}
