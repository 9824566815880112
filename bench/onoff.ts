// A feature's cost on the 10 KB page: two built apps in one run, one with the feature off and one
// with it on. wrk shares the machine's cores with the server, so a single pair can be off by
// ±15% and far more on a busy machine: PAIRS alternating pairs (the median pair is the figure),
// then TOGETHER runs with both apps under load at once (a wrk each), where a burst of other work
// slows both in the same seconds and the scheduler's fair shares leave the cheaper one more.
import { inRounds, medianRound, type WrkResult } from "./wrk";

const PAIRS = 7;
const TOGETHER = 5;

type Pair = { off: WrkResult; on: WrkResult };

export interface OnOff {
  /** The alternating pairs: the median pair, its ratio (on ÷ off) and every pair's. */
  pairs: { round: Pair; ratio: number; ratios: number[] };
  /** Both under load at once: the median run, its ratio and every run's. */
  together: { round: Pair; ratio: number; ratios: number[] };
}

export async function onOff(off: () => Promise<WrkResult>, on: () => Promise<WrkResult>): Promise<OnOff> {
  const rounds = await inRounds(PAIRS, { off, on });
  const runs: Pair[] = [];
  for (let i = 0; i < TOGETHER; i++) {
    const [x, y] = await Promise.all([off(), on()]);
    runs.push({ off: x, on: y });
  }
  const ratio = (r: Pair) => r.on.rps / r.off.rps;
  return { pairs: medianRound(rounds, ratio), together: medianRound(runs, ratio) };
}
