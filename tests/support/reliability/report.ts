// The report: what ran, on what machine, every outcome by route, what the outage and recovery
// looked like, and the invariants; formatReport prints it for the command line.
import { cpus, loadavg, totalmem } from "node:os";
import type { Invariant } from "./checks";
import { TRANSPORT_ERROR, type RequestRecord } from "./http";
import type { OutageTimes } from "./outage";

export interface ReliabilityOptions {
  /** Length of the load phase. */
  seconds: number;
  /** Parallel clients. */
  clients: number;
  /** When the database stops, in seconds after the load starts. */
  outageAt: number;
  /** How long the database stays down. */
  outageSeconds: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** Bytes in an S3 bucket (s3rver on loopback) instead of the data directory; the bucket stops with the database. */
  s3?: boolean;
}

export interface ReliabilityReport {
  options: Omit<ReliabilityOptions, "log">;
  machine: { cpus: number; model: string; memoryGb: number; loadBefore: number[]; loadAfter: number[]; node: string };
  /** Route → outcome (status code, or "transport error") → count. */
  outcomes: Record<string, Record<string, number>>;
  /** Requests that completed while the database was down, by route and outcome. */
  duringOutage: Record<string, Record<string, number>>;
  /** With --s3: requests that completed while the bucket alone was down, and how fast its 503s were answered. */
  duringBucketOutage?: {
    outcomes: Record<string, Record<string, number>>;
    outageMs: number;
    answered503Ms: ReliabilityReport["outage503Ms"];
  };
  /** How long the 503s of requests that started and ended inside the outage took (ms): failing fast, not waiting on timeouts. */
  outage503Ms: { count: number; p50: number; p95: number; max: number };
  /** 2xx answers to database-backed requests that started after the restart. */
  successesAfterRestart: number;
  requests: number;
  invariants: Invariant[];
  faults: {
    databaseRestarts: number;
    /** With --s3: the bucket stopped and started with the database, then alone. */
    bucketRestarts: number;
    outageMs: number;
    /** From the database's restart to the first 200 of GET /healthz. */
    recoveryMs: number | null;
    appPid: number | undefined;
    appPidAfter: number | undefined;
    appRestarts: number;
  };
  violations: number;
}

/** Route → outcome → count. */
function tally(rs: readonly RequestRecord[]): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const r of rs) {
    const row = (out[r.route] ??= {});
    const k = r.status === TRANSPORT_ERROR ? "transport error" : String(r.status);
    row[k] = (row[k] ?? 0) + 1;
  }
  return out;
}

function spread(ms: number[]): ReliabilityReport["outage503Ms"] {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
  return { count: sorted.length, p50: at(0.5), p95: at(0.95), max: sorted.at(-1) ?? 0 };
}

function bucketOutage(
  load: readonly RequestRecord[],
  b: NonNullable<OutageTimes["bucket"]>,
): NonNullable<ReliabilityReport["duringBucketOutage"]> {
  return {
    outcomes: tally(load.filter((r) => r.end >= b.haltedAt && r.end <= b.resumedAt)),
    outageMs: b.resumedAt - b.haltedAt,
    answered503Ms: spread(
      load
        .filter((r) => r.status === 503 && r.start >= b.haltedAt && r.end <= b.resumingAt)
        .map((r) => r.end - r.start),
    ),
  };
}

export function buildReport(input: {
  opts: ReliabilityOptions;
  loadBefore: number[];
  records: readonly RequestRecord[];
  times: OutageTimes;
  invariants: Invariant[];
  app: { pidBefore: number | undefined; pidAfter: number | undefined };
}): ReliabilityReport {
  const { opts, records, times, invariants, app } = input;
  const load = records.filter((r) => r.route !== "setup");
  return {
    options: {
      seconds: opts.seconds,
      clients: opts.clients,
      outageAt: opts.outageAt,
      outageSeconds: opts.outageSeconds,
      s3: opts.s3 ?? false,
    },
    machine: {
      cpus: cpus().length,
      model: cpus()[0]?.model ?? "?",
      memoryGb: Math.round(totalmem() / 2 ** 30),
      loadBefore: input.loadBefore,
      loadAfter: loadavg(),
      node: process.version,
    },
    outcomes: tally(load),
    duringOutage: tally(load.filter((r) => r.end >= times.haltedAt && r.end <= times.resumedAt)),
    outage503Ms: spread(
      load
        .filter((r) => r.status === 503 && r.start >= times.haltedAt && r.end <= times.resumingAt)
        .map((r) => r.end - r.start),
    ),
    ...(times.bucket ? { duringBucketOutage: bucketOutage(load, times.bucket) } : {}),
    successesAfterRestart: load.filter(
      (r) => r.usesDb && r.start > times.resumedAt && r.status >= 200 && r.status < 300,
    ).length,
    requests: load.length,
    invariants,
    faults: {
      databaseRestarts: times.resumedAt ? 1 : 0,
      bucketRestarts: (times.resumedAt && opts.s3 ? 1 : 0) + (times.bucket ? 1 : 0),
      outageMs: times.resumedAt - times.haltedAt,
      recoveryMs: times.recoveryMs,
      appPid: app.pidBefore,
      appPidAfter: app.pidAfter,
      appRestarts: 0,
    },
    violations: invariants.reduce((n, i) => n + i.violations.length, 0),
  };
}

export function formatReport(r: ReliabilityReport): string {
  const lines: string[] = [];
  const what = r.options.s3 ? "database and S3 bucket" : "database";
  lines.push(
    `reliability run: ${r.options.clients} clients, ${r.options.seconds} s, ${what} down at ${r.options.outageAt} s for ${r.options.outageSeconds} s`,
  );
  lines.push(
    `machine: ${r.machine.cpus} × ${r.machine.model}, ${r.machine.memoryGb} GB, Node ${r.machine.node}; load average ${r.machine.loadBefore.map((l) => l.toFixed(2)).join(" ")} before, ${r.machine.loadAfter.map((l) => l.toFixed(2)).join(" ")} after`,
  );
  const table = (t: Record<string, Record<string, number>>) => {
    for (const [route, outcomes] of Object.entries(t).sort()) {
      const parts = Object.entries(outcomes)
        .sort()
        .map(([k, n]) => `${k}: ${n}`);
      lines.push(`  ${route.padEnd(30)} ${parts.join(", ")}`);
    }
  };
  lines.push("", `requests by route and outcome (${r.requests} in all):`);
  table(r.outcomes);
  lines.push("", `completed while the ${what} was down:`);
  table(r.duringOutage);
  const t = r.outage503Ms;
  lines.push(
    `503s of requests that started and ended inside the outage: ${t.count}, answered in ${t.p50} ms (median), ${t.p95} ms (95th percentile), ${t.max} ms (slowest)`,
  );
  lines.push(`successes of database-backed requests after the restart: ${r.successesAfterRestart}`);
  const b = r.duringBucketOutage;
  if (b) {
    lines.push("", `completed while the S3 bucket alone was down (${b.outageMs} ms):`);
    table(b.outcomes);
    lines.push(
      `503s of requests that started and ended inside it: ${b.answered503Ms.count}, answered in ${b.answered503Ms.p50} ms (median), ${b.answered503Ms.p95} ms (95th percentile), ${b.answered503Ms.max} ms (slowest)`,
    );
  }
  lines.push("", "faults survived:");
  lines.push(
    `  database restarts: ${r.faults.databaseRestarts}${r.options.s3 ? `, S3 bucket restarts: ${r.faults.bucketRestarts}` : ""} (down ${r.faults.outageMs} ms); GET /healthz 200 again ${r.faults.recoveryMs ?? "never"} ms after the restart`,
  );
  lines.push(
    `  app process: pid ${r.faults.appPid} before, ${r.faults.appPidAfter ?? "gone"} after (${r.faults.appRestarts} restarts)`,
  );
  lines.push("", "invariants:");
  for (const i of r.invariants) {
    lines.push(`  ${i.violations.length === 0 ? "ok  " : "FAIL"} ${i.name}`);
    lines.push(`       checked: ${i.checked}`);
    for (const v of i.violations.slice(0, 20)) lines.push(`       violation: ${v}`);
    if (i.violations.length > 20) lines.push(`       … and ${i.violations.length - 20} more`);
  }
  lines.push("", r.violations === 0 ? "no violations" : `${r.violations} violation(s)`);
  return lines.join("\n");
}
