// Load, with the outage in the middle: the clients loop until the time is up while PostgreSQL
// (and with --s3 the bucket) is stopped and started again on the same data dir and port; then
// the same app process must answer GET /healthz 200 by itself. With --s3 the bucket then goes
// down a second time on its own, the database up, so that what needs the store meets the store's
// outage and not the database's.
import { call } from "./http";
import type { Stack } from "./stack";

/** When the outage happened (ms since the epoch) and how long the app took to recover. */
export interface OutageTimes {
  haltedAt: number;
  /** When the start command was issued: from here the server may accept connections before the command returns. */
  resumingAt: number;
  resumedAt: number;
  /** From the restart to the first 200 of GET /healthz; null when that took over 60 s. */
  recoveryMs: number | null;
  /** With --s3: the bucket's second outage, alone. */
  bucket?: { haltedAt: number; resumingAt: number; resumedAt: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `clients` loops of `next()` for `seconds`, with the outage `outageAt` seconds in for `outageSeconds`. */
export async function loadWithOutage(
  stack: Stack,
  opts: { seconds: number; clients: number; outageAt: number; outageSeconds: number },
  next: () => () => Promise<void>,
  log: (line: string) => void,
): Promise<OutageTimes> {
  const loadStart = Date.now();
  const deadline = loadStart + opts.seconds * 1000;
  const client = async () => {
    while (Date.now() < deadline) await next()();
  };
  const faults = async () => {
    const times = await outage(stack, opts, loadStart, log);
    if (stack.s3) times.bucket = await bucketOutage(stack, opts, loadStart, log);
    return times;
  };
  const [, times] = await Promise.all([Promise.all(Array.from({ length: opts.clients }, client)), faults()]);
  return times;
}

async function outage(
  stack: Stack,
  opts: { outageAt: number; outageSeconds: number },
  loadStart: number,
  log: (line: string) => void,
): Promise<OutageTimes> {
  const at = () => `t=${((Date.now() - loadStart) / 1000).toFixed(1)}s`;
  await sleep(opts.outageAt * 1000);
  log(`${at()}: stopping PostgreSQL (immediate shutdown)${stack.s3 ? " and the S3 bucket" : ""}`);
  await Promise.all([stack.pg.halt(), stack.s3?.stop()]);
  const haltedAt = Date.now();
  await sleep(opts.outageSeconds * 1000);
  const resumingAt = Date.now();
  await Promise.all([stack.pg.resume(), stack.s3?.start()]);
  const resumedAt = Date.now();
  log(
    `${at()}: PostgreSQL started again on the same data dir and port${stack.s3 ? "; the S3 bucket answers again" : ""}`,
  );
  const recoveryMs = await untilHealthy(stack, resumedAt);
  log(`recovered ${recoveryMs === null ? "NOT within 60 s" : `${recoveryMs} ms after the restart`}`);
  return { haltedAt, resumingAt, resumedAt, recoveryMs };
}

/** The bucket alone, 3 s after the first outage's recovery, for as long as the first outage. */
async function bucketOutage(
  stack: Stack,
  opts: { outageSeconds: number },
  loadStart: number,
  log: (line: string) => void,
): Promise<OutageTimes["bucket"]> {
  const at = () => `t=${((Date.now() - loadStart) / 1000).toFixed(1)}s`;
  await sleep(3_000);
  log(`${at()}: stopping the S3 bucket alone`);
  await stack.s3?.stop();
  const haltedAt = Date.now();
  await sleep(opts.outageSeconds * 1000);
  const resumingAt = Date.now();
  await stack.s3?.start();
  const resumedAt = Date.now();
  log(`${at()}: the S3 bucket answers again`);
  return { haltedAt, resumingAt, resumedAt };
}

/** Milliseconds from `since` to the first 200 of GET /healthz, or null after 60 s. */
async function untilHealthy(stack: Stack, since: number): Promise<number | null> {
  for (;;) {
    const h = await call(stack.agent, stack.app.port, stack.appHost, "/healthz");
    if (h.status === 200) return Date.now() - since;
    if (Date.now() - since > 60_000) return null;
    await sleep(100);
  }
}
