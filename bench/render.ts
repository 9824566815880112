// render (issue 41): the render check of a small page in Debian's Chromium (RENDER_BROWSER_PATH),
// through POST /drops/{slug}/render (synchronous: both viewports, screenshots stored): the time of
// ten checks one after another (the first, which starts the browser, reported apart), and the
// memory of the server and its browser processes while RENDER_CONCURRENCY checks run at once.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { appHost, makeAccounts, deploy, startBenchApp } from "./app";
import { mb } from "./site";
import { list, median } from "./wrk";

const BROWSER = process.env.RENDER_BROWSER_PATH ?? "/usr/bin/chromium";
const CONCURRENCY = 2;

const SMALL_PAGE = new TextEncoder().encode(
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Small page</title>` +
    `<link rel="stylesheet" href="style.css"></head><body><h1>Hello</h1><p>A small page with a style sheet and a script.</p>` +
    `<script src="app.js"></script></body></html>`,
);

/** Resident memory of a process and every process below it (the browser's), from /proc. */
function treeRss(root: number): number {
  const parent = new Map<number, number>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // the process ended meanwhile
    }
  }
  const inTree = (pid: number): boolean => pid === root || (pid > 1 && inTree(parent.get(pid) ?? 0));
  let total = 0;
  for (const pid of parent.keys())
    if (inTree(pid))
      try {
        total += Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
      } catch {
        // ended
      }
  return total;
}

export async function renderSection(work: string): Promise<string[]> {
  if (!existsSync(BROWSER)) return ["", `Render check: skipped (no browser at ${BROWSER})`];
  const dataDir = path.join(work, "data-render");
  const [key] = await makeAccounts(dataDir, 1, {}, "team");
  const app = await startBenchApp(dataDir, {
    RENDER_BROWSER_PATH: BROWSER,
    RENDER_CONCURRENCY: String(CONCURRENCY),
  });
  try {
    const site = {
      "index.html": SMALL_PAGE,
      "style.css": new TextEncoder().encode("body { font: 16px/1.5 sans-serif; margin: 2rem }"),
      "app.js": new TextEncoder().encode("document.querySelector('h1').textContent += '!';"),
    };
    const drop = await deploy(app, site, { key });
    const check = async () => {
      const t0 = performance.now();
      const res = await app.request(appHost(app), `/drops/${drop.slug}/render`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
      });
      const ms = performance.now() - t0;
      const body = res.json() as { status?: string };
      if (res.status !== 200 || body.status !== "ok") throw new Error(`render check: ${res.status} ${res.text}`);
      return ms;
    };
    const idle = treeRss(app.proc.pid!);
    const first = await check();
    const times: number[] = [];
    for (let i = 0; i < 10; i++) times.push(await check());
    const afterSerial = treeRss(app.proc.pid!);
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, treeRss(app.proc.pid!))), 100);
    const t0 = performance.now();
    try {
      await Promise.all(Array.from({ length: CONCURRENCY * 2 }, () => check()));
    } finally {
      clearInterval(sampler);
    }
    const burstMs = performance.now() - t0;
    const rows = [
      "",
      `Render check: a small page (HTML, a style sheet, a script) checked at both viewports in Debian's Chromium through POST /drops/{slug}/render (synchronous, screenshots stored); memory is the server's process and its browser's, from /proc`,
      "",
      "| measurement | result |",
      "|---|---|",
      `| first check (starts the browser) | ${first.toFixed(0)} ms |`,
      `| check time, median of 10 in a row | ${median(times).toFixed(0)} ms (${list(times, 0)}) |`,
      `| ${CONCURRENCY * 2} checks at once with RENDER_CONCURRENCY=${CONCURRENCY} (the rest queued) | ${burstMs.toFixed(0)} ms for all |`,
      `| resident memory: server before any check | ${mb(idle)} |`,
      `| resident memory: server and browser, idle after 11 checks | ${mb(afterSerial)} |`,
      `| resident memory: server and browser, peak with ${CONCURRENCY} checks in flight | ${mb(peak)} |`,
    ];
    console.error(rows.slice(-6).join("\n"));
    return rows;
  } finally {
    await app.stop();
  }
}
