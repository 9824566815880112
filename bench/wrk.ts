// The load generator: wrk on loopback, its settings, and how a result is read and printed.
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Seconds of each measured run (BENCH_SECONDS); every run follows a 1 s warm-up of the same load. */
export const DURATION = process.env.BENCH_SECONDS ?? "10";
/** wrk threads (BENCH_WRK_THREADS): one leaves the second of two cores to the server under test. */
export const THREADS = process.env.BENCH_WRK_THREADS ?? "1";
export const CONNECTIONS = 64;
/** The settings line every table of the bench is measured with. */
export const WRK_SETTINGS = `wrk -t${THREADS} -c${CONNECTIONS} -d${DURATION}s --latency after a 1 s warm-up, loopback`;

export interface WrkResult {
  rps: number;
  p99ms: number;
  bad: number;
  requests: number;
}

function ms(v: string, unit: string): number {
  const n = Number(v);
  return unit === "us" ? n / 1000 : unit === "s" ? n * 1000 : unit === "m" ? n * 60_000 : n;
}

/** Reads wrk's report (--latency). */
export function parseWrk(stdout: string): WrkResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0);
  const p = /99%\s+([\d.]+)(us|ms|s|m)\b/.exec(stdout);
  const bad =
    Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0) +
    Number(/Socket errors:.*timeout (\d+)/.exec(stdout)?.[1] ?? 0);
  const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
  return { rps, p99ms: p ? ms(p[1] as string, p[2] as string) : NaN, bad, requests };
}

/** One wrk run of `seconds` (no warm-up). */
export async function wrk(
  port: number,
  host: string,
  pathname: string,
  headers: Record<string, string>,
  seconds: string,
): Promise<WrkResult> {
  const args = [`-t${THREADS}`, `-c${CONNECTIONS}`, `-d${seconds}s`, "--latency", "-H", `Host: ${host}`];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
  args.push(`http://127.0.0.1:${port}${pathname}`);
  const { stdout } = await run("wrk", args, { maxBuffer: 1 << 20 });
  return parseWrk(stdout);
}

/** One second of the same load first (JIT, caches, connection setup), then the measured run. */
export async function measure(
  port: number,
  host: string,
  pathname: string,
  headers: Record<string, string> = {},
): Promise<WrkResult> {
  await wrk(port, host, pathname, headers, "1");
  return wrk(port, host, pathname, headers, DURATION);
}

export const fmt = (r: WrkResult) =>
  `${Math.round(r.rps).toLocaleString("en-US")} req/s, p99 ${r.p99ms.toFixed(1)} ms${r.bad ? ` (${r.bad} bad)` : ""}`;

export const times = (x: number) => `${x.toFixed(2)}×`;

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/**
 * Measures every named load once per round, `count` rounds, the order reversed every other round:
 * a burst of load elsewhere on a shared machine then hits every side alike, and no side is always
 * measured after the other. Returns the rounds.
 */
export async function inRounds<K extends string, R extends WrkResult = WrkResult>(
  count: number,
  loads: Record<K, () => Promise<R>>,
): Promise<Record<K, R>[]> {
  const rounds: Record<K, R>[] = [];
  for (let i = 0; i < count; i++) {
    const round = {} as Record<K, R>;
    // Every other round in the reverse order: a side is not always the one measured second.
    const order = Object.entries(loads) as [K, () => Promise<R>][];
    if (i % 2 === 1) order.reverse();
    for (const [name, load] of order) round[name] = await load();
    rounds.push(round);
  }
  return rounds;
}

/** A ratio of every round, and the round whose ratio is the median (the one a table shows). */
export function medianRound<R>(
  rounds: R[],
  ratio: (round: R) => number,
): { round: R; ratio: number; ratios: number[] } {
  const ratios = rounds.map(ratio);
  const i = ratios.indexOf(median(ratios));
  return { round: rounds[i]!, ratio: ratios[i]!, ratios };
}

/** "0.98, 0.87, 0.95": the ratios of every round. */
export const list = (xs: number[], digits = 2) => xs.map((x) => x.toFixed(digits)).join(", ");
