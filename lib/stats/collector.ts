import { createHash, randomBytes } from "node:crypto";
import type { AppContext } from "../context";
import { sqlState } from "../db/errors";
import {
  addDayCounts,
  closeDaysBefore,
  DAY_COUNTERS,
  DAY_MAPS,
  daySalt,
  deleteStatsBefore,
  type DayCounters,
  type DayDelta,
} from "../db/stats";
import { STATS_KEPT_DAYS } from "../plans";

// The counts of one process, in memory: a tally per drop and UTC day, written by one transaction
// for all of them (a row upsert per drop and day) at most every FLUSH_MS (and at shutdown,
// flushAll), never per request. A crash loses at most the last FLUSH_MS of counts
// (docs/decisions.md, "Counts").
//
// Visitors: the process keeps each view's address and user agent in memory until the flush,
// where they become SHA-256(day salt, address, user agent); only those hashes reach the
// database, deduplicated there across processes, and are deleted once the day is final.
//
// A view costs no string of its own: tallies are found by day, then by the drop's id (the
// cached manifest's string, whose hash V8 keeps), and visitors by address, then user agent.
// A "drop/day" key built per view, and an "address\nagent" string per view, made counting a
// long tail's views (5,000 drops at random) several times dearer than one drop's
// (docs/benchmarks.md).

const FLUSH_MS = 10_000;
/** A day is final this long after it ends: every process has flushed it by then. */
const FINAL_GRACE_MS = 5 * 60_000;
/**
 * The longest a flush holds the serving thread in one turn of the event loop: past it, the
 * flush yields (setImmediate) and requests are served before it goes on. A count per turn (500
 * tallies) took 10-62 ms a turn on a long tail, enough to show in a 10 s run's p99.
 */
const FLUSH_SLICE_MS = 4;
/** Keys kept per map and tally between flushes; a flood of distinct paths cannot grow memory. */
const KEYS_PER_TALLY = 1000;

/** A drop's day as one process counts it: the day's counters and maps (lib/db/stats.ts names them). */
export interface Tally extends DayCounters, Record<(typeof DAY_MAPS)[number], Map<string, number>> {
  dropId: string;
  day: string;
  /** Each view's client, user agents by address: memory only, hashed at the flush. */
  people: Map<string, Set<string>>;
}

interface Counter {
  ctx: AppContext;
  /** Tallies by day, then by drop id. */
  tallies: Map<string, Map<string, Tally>>;
  timer: NodeJS.Timeout | undefined;
  /** Settles when the scheduled flush has run (what Vercel's waitUntil holds). */
  scheduled: Promise<void> | undefined;
  settle: (() => void) | undefined;
  flushing: Promise<void>;
  salts: Map<string, string>;
  /** The first open day at the last clean-up of final days. */
  closedBefore: string | undefined;
}

// On globalThis: the listener's bundle and Next's bundles are separate module instances in one
// process, as the serve caches are (lib/serve/cache.ts).
const KEY = Symbol.for("dropsite.statsCounters");
const slot = globalThis as unknown as Record<symbol, Map<AppContext, Counter> | undefined>;

function counters(): Map<AppContext, Counter> {
  return (slot[KEY] ??= new Map<AppContext, Counter>());
}

function counterOf(ctx: AppContext): Counter {
  const all = counters();
  let c = all.get(ctx);
  if (!c) {
    c = {
      ctx,
      tallies: new Map(),
      timer: undefined,
      scheduled: undefined,
      settle: undefined,
      flushing: Promise.resolve(),
      salts: new Map(),
      closedBefore: undefined,
    };
    all.set(ctx, c);
  }
  return c;
}

/** 'YYYY-MM-DD' of a time (UTC); the day of the last call is remembered (every request asks). */
let lastDay = { from: 0, to: 0, day: "" };
export function utcDay(ms: number): string {
  if (ms >= lastDay.from && ms < lastDay.to) return lastDay.day;
  const from = ms - (((ms % 86_400_000) + 86_400_000) % 86_400_000);
  lastDay = { from, to: from + 86_400_000, day: new Date(ms).toISOString().slice(0, 10) };
  return lastDay.day;
}

function emptyTally(dropId: string, day: string): Tally {
  return {
    dropId,
    day,
    views: 0,
    previewViews: 0,
    requests: 0,
    bytes: 0,
    notFound: 0,
    botRequests: 0,
    previews: 0,
    paths: new Map(),
    referrers: new Map(),
    countries: new Map(),
    people: new Map(),
  };
}

/** The tally of a drop's current day, with a flush scheduled for it. */
export function tallyOf(ctx: AppContext, dropId: string): { tally: Tally; scheduled: Promise<void> } {
  const c = counterOf(ctx);
  const tally = tallyIn(c, dropId, utcDay(ctx.now()));
  return { tally, scheduled: schedule(c) };
}

/** The tally of a drop's day, made if the process has none yet. */
function tallyIn(c: Counter, dropId: string, day: string): Tally {
  let drops = c.tallies.get(day);
  if (!drops) c.tallies.set(day, (drops = new Map<string, Tally>()));
  let tally = drops.get(dropId);
  if (!tally) drops.set(dropId, (tally = emptyTally(dropId, day)));
  return tally;
}

/** Adds a view's client (address and user agent) to a tally's visitors. */
export function addPerson(tally: Tally, address: string, userAgent: string): void {
  const agents = tally.people.get(address);
  if (agents) agents.add(userAgent);
  else tally.people.set(address, new Set([userAgent]));
}

function schedule(c: Counter): Promise<void> {
  if (c.scheduled) return c.scheduled;
  c.scheduled = new Promise((resolve) => (c.settle = resolve));
  c.timer = setTimeout(() => void flushNow(c), FLUSH_MS);
  c.timer.unref();
  return c.scheduled;
}

/** Adds one to a key of a tally's map, within KEYS_PER_TALLY keys. */
export function bump(map: Map<string, number>, key: string): void {
  const n = map.get(key);
  if (n !== undefined) map.set(key, n + 1);
  else if (map.size < KEYS_PER_TALLY) map.set(key, 1);
}

/** Writes what the process has counted (one upsert per drop and day); runs one at a time. */
function flush(c: Counter): Promise<void> {
  const run = c.flushing.then(() => write(c));
  c.flushing = run;
  return run;
}

async function write(c: Counter): Promise<void> {
  const tallies = [...c.tallies.values()].flatMap((drops) => [...drops.values()]);
  c.tallies = new Map();
  if (tallies.length > 0) {
    try {
      const deltas: DayDelta[] = [];
      // A long tail's thousands of tallies are hashed a few milliseconds at a time, requests served between.
      let sliceStart = performance.now();
      for (const t of tallies) {
        if (performance.now() - sliceStart > FLUSH_SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceStart = performance.now();
        }
        deltas.push(await deltaOf(c, t));
      }
      await addDayCounts(c.ctx.db, deltas);
    } catch (err) {
      // A drop deleted meanwhile fails the whole batch (its row's foreign key): write them one by
      // one, so only the deleted drop's counts go with it.
      if (sqlState(err) === "23503") await writeEach(c, tallies);
      else failed(c, tallies, err);
    }
  }
  await closeFinalDays(c).catch((err) =>
    console.error("[stats] could not close the final days:", err instanceof Error ? err.message : err),
  );
}

async function writeEach(c: Counter, tallies: Tally[]): Promise<void> {
  for (const t of tallies)
    try {
      await addDayCounts(c.ctx.db, [await deltaOf(c, t)]);
    } catch (err) {
      if (sqlState(err) !== "23503") failed(c, [t], err);
    }
}

/** Any other failure keeps the counts for the next flush. */
function failed(c: Counter, tallies: Tally[], err: unknown): void {
  console.error("[stats] could not write counts:", err instanceof Error ? err.message : err);
  for (const t of tallies) keep(c, t);
}

async function deltaOf(c: Counter, t: Tally): Promise<DayDelta> {
  const salt = t.people.size > 0 ? await saltOf(c, t.day) : "";
  const hashes: string[] = [];
  for (const [address, agents] of t.people)
    for (const ua of agents) hashes.push(visitorHash(salt, `${address}\n${ua}`));
  const delta = { dropId: t.dropId, day: t.day, hashes } as DayDelta;
  for (const f of DAY_COUNTERS) delta[f] = t[f];
  for (const f of DAY_MAPS) delta[f] = Object.fromEntries(t[f]);
  return delta;
}

/** Puts a tally that could not be written back, added to what was counted since. */
function keep(c: Counter, t: Tally): void {
  const now = tallyIn(c, t.dropId, t.day);
  for (const f of DAY_COUNTERS) now[f] += t[f];
  for (const f of DAY_MAPS) for (const [key, n] of t[f]) now[f].set(key, (now[f].get(key) ?? 0) + n);
  for (const [address, agents] of t.people) for (const ua of agents) addPerson(now, address, ua);
  void schedule(c);
}

/**
 * The day's salt, the same in every process: kept in Redis (REDIS_URL or Upstash; it expires
 * once the day is final) when the service has one, in the database otherwise (deleted when the
 * day closes).
 */
async function saltOf(c: Counter, day: string): Promise<string> {
  const known = c.salts.get(day);
  if (known) return known;
  const fresh = randomBytes(32).toString("hex");
  const limiter = c.ctx.limiter;
  const salt = limiter.shared
    ? await limiter.shared(`dropsite:stats-salt:${day}`, fresh, saltSeconds(c.ctx.now(), day))
    : await daySalt(c.ctx.db, day, fresh);
  for (const d of c.salts.keys()) if (d < day) c.salts.delete(d);
  c.salts.set(day, salt);
  return salt;
}

/** Seconds from now until the day is final (its end plus FINAL_GRACE_MS), at least one. */
function saltSeconds(now: number, day: string): number {
  const final = Date.parse(`${day}T00:00:00Z`) + 86_400_000 + FINAL_GRACE_MS;
  return Math.max(1, Math.ceil((final - now) / 1000));
}

function visitorHash(salt: string, person: string): string {
  return createHash("sha256").update(`${salt}\n${person}`).digest("hex");
}

/** Deletes the visitor hashes and salts of final days, once per day per process. */
async function closeFinalDays(c: Counter): Promise<void> {
  const open = utcDay(c.ctx.now() - FINAL_GRACE_MS);
  if (c.closedBefore === open) return;
  await closeDaysBefore(c.ctx.db, open);
  c.closedBefore = open;
  for (const d of c.salts.keys()) if (d < open) c.salts.delete(d);
}

/** The scheduled flush, now; whoever waits for it (Vercel's waitUntil) is let go once it ran. */
async function flushNow(c: Counter): Promise<void> {
  if (c.timer) clearTimeout(c.timer);
  const settle = c.settle;
  c.timer = undefined;
  c.scheduled = undefined;
  c.settle = undefined;
  await flush(c);
  settle?.();
}

/** Writes every count held now (graceful shutdown; tests). */
export async function flushAll(): Promise<void> {
  for (const c of counters().values()) await flushNow(c);
}

/**
 * The cleanup job's part: day rows older than the longest retention are deleted, and the hashes
 * and salts of final days (should no process have flushed since the day closed).
 */
export async function expireCounts(ctx: AppContext): Promise<void> {
  const now = ctx.now();
  await deleteStatsBefore(ctx.db, utcDay(now - (STATS_KEPT_DAYS - 1) * 86_400_000));
  await closeDaysBefore(ctx.db, utcDay(now - FINAL_GRACE_MS));
}
