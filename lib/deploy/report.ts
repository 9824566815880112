import type { AppContext } from "../context";
import { LARGE_FILE_WARNING_BYTES } from "../plans";
import type { DeployReport } from "../schemas";
import { resolvePath } from "../serve/paths";
import { mapLimit } from "../concurrency";
import type { OnBytes } from "./contents";
import type { InputFile } from "./paths";
import { targetOf, textKind, type TextKind } from "./report-refs";
import { baseOf, recall, remember, scanBytes, scanCache, type ContentScan } from "./report-scan";
import { isEnvFile, secretWarnings, shownRef, type Warning } from "./report-secrets";

// The deploy report: what a deploy's files refer to that the drop does not hold, and likely
// mistakes (no index.html, very large files, paths that differ only by case, secrets). A pure
// function over paths and bytes (buildReport), and the step of the deploy flow that gathers
// the bytes the request does not hold from storage, within a budget (reportFor). Advisory:
// it never refuses a deploy. A secret is described by kind and line, never quoted. Its parts:
// references (report-refs.ts), secrets (report-secrets.ts), remembered scans (report-scan.ts).

const MB = 1024 * 1024;

/** Bytes of one file that are checked; the rest of a longer file is not (a not_scanned warning says so). */
export const SCAN_BYTES_PER_FILE = 4 * MB;

/** Bytes checked per deploy in all; files past it are not checked (and listed as not_scanned). */
export const SCAN_BYTES_PER_DEPLOY = 32 * MB;

/** Bytes that one deploy reads back from storage to check files whose bytes it does not hold. */
export const READ_BYTES_PER_DEPLOY = 16 * MB;

/** Entries per list; the rest are counted in left_off. */
export const REPORT_LIST_CAP = 100;

const READ_CONCURRENCY = 8;

export interface ReportFile {
  path: string;
  size: number;
  /** The file's bytes, or their first part; undefined when they were not read. */
  bytes?: Uint8Array;
  /** What its bytes were found to hold, instead of the bytes (a remembered scan of the same content). */
  scan?: ContentScan;
}

export interface ReportInput {
  /** The files of this request. */
  files: readonly ReportFile[];
  /** Paths the drop already holds (appends): references to them are not missing. */
  existingPaths?: readonly string[];
}

const mb = (n: number) => `${(n / MB).toFixed(1)} MB`;

/** The report of a deploy's files, against the drop's whole path list. Pure. */
export function buildReport(input: ReportInput): DeployReport {
  const all = new Set<string>([...(input.existingPaths ?? []), ...input.files.map((f) => f.path)]);
  const has = (p: string) => all.has(p);
  const answers = (p: string) => {
    const r = resolvePath(has, p);
    return r !== undefined && ("redirect" in r || r.status === 200);
  };
  const missing: DeployReport["missing_references"] = [];
  const warnings: Warning[] = [];

  if (!answers(""))
    warnings.push({ kind: "no_index", message: "No index.html at the root: the drop's own address answers 404." });

  // Case-only clashes among the whole drop that involve a file of this request.
  const fresh = new Set(input.files.map((f) => f.path));
  const byLower = new Map<string, string[]>();
  for (const p of all) byLower.set(p.toLowerCase(), [...(byLower.get(p.toLowerCase()) ?? []), p]);
  for (const group of byLower.values()) {
    if (group.length < 2 || !group.some((p) => fresh.has(p))) continue;
    const [first, ...others] = group.sort();
    warnings.push({
      path: first,
      kind: "case_clash",
      message: `Differs only by letter case from ${others.map((o) => JSON.stringify(o)).join(", ")}: URLs are case-sensitive here, but not on every file system or host this site may move to.`,
    });
  }

  let budget = SCAN_BYTES_PER_DEPLOY;
  for (const f of input.files) {
    if (f.size > LARGE_FILE_WARNING_BYTES) {
      warnings.push({
        path: f.path,
        kind: "large_file",
        message: `${mb(f.size)}, over ${mb(LARGE_FILE_WARNING_BYTES)}: slow to load for visitors on mobile networks.`,
      });
    }
    if (isEnvFile(f.path)) {
      warnings.push({
        path: f.path,
        kind: "secret",
        secret_kind: "env_file",
        message:
          "An environment file is published: anyone can read it at the drop's URL. Environment files usually hold secrets; remove it and revoke what it holds.",
      });
    }
    const kind = textKind(f.path);
    if (kind === null || f.size === 0) continue;
    const available = f.scan?.scanned ?? f.bytes?.byteLength;
    if (available === undefined || budget <= 0) {
      warnings.push({
        path: f.path,
        kind: "not_scanned",
        message:
          "Not checked for references or secrets: past what one deploy checks (its content was sent by reference or the deploy is large).",
      });
      continue;
    }
    const length = Math.min(available, SCAN_BYTES_PER_FILE, budget);
    budget -= length;
    if (length < f.size) {
      warnings.push({
        path: f.path,
        kind: "not_scanned",
        message: `Only its first ${mb(length)} were checked for references and secrets.`,
      });
    }
    const scan =
      f.scan?.kind === kind && f.scan.scanned === length
        ? f.scan
        : f.bytes
          ? scanBytes(kind, f.bytes, length)
          : undefined;
    if (!scan) {
      warnings.push({ path: f.path, kind: "not_scanned", message: "Not checked for references or secrets this time." });
      continue;
    }
    warnings.push(...secretWarnings(f.path, scan));
    const base = baseOf(scan, f.path);
    if (base === null) continue;
    const seen = new Set<string>();
    for (const raw of scan.refs) {
      const ref = raw.trim();
      if (seen.has(ref)) continue;
      seen.add(ref);
      const target = targetOf(ref, base);
      if (target !== null && !answers(target)) missing.push({ path: f.path, ref: shownRef(ref) });
    }
  }

  const report: DeployReport = {
    missing_references: missing.slice(0, REPORT_LIST_CAP),
    warnings: warnings.slice(0, REPORT_LIST_CAP),
  };
  if (missing.length > REPORT_LIST_CAP || warnings.length > REPORT_LIST_CAP) {
    report.left_off = {
      missing_references: Math.max(0, missing.length - REPORT_LIST_CAP),
      warnings: Math.max(0, warnings.length - REPORT_LIST_CAP),
    };
  }
  return report;
}

async function readUpTo(ctx: AppContext, storageRef: string, length: number): Promise<Uint8Array | undefined> {
  const stream = await ctx.storage.get(storageRef, { start: 0, end: length - 1 });
  if (!stream) return undefined;
  const out = new Uint8Array(length);
  let at = 0;
  const reader = stream.getReader();
  try {
    while (at < length) {
      const { done, value } = await reader.read();
      if (done) break;
      const part = value.subarray(0, length - at);
      out.set(part, at);
      at += part.byteLength;
    }
  } finally {
    // Not awaited: under Next, fetch bodies can be tee'd, and cancelling one branch of a tee
    // settles only when the other branch is cancelled too, so awaiting it can hang the deploy.
    void reader.cancel().catch(() => undefined);
  }
  return out.subarray(0, at);
}

/**
 * The report of a deploy (or append) step, from the stored file rows (path, size, storage ref)
 * and the request's files. Bytes the request holds in memory are checked as they are; the text
 * files whose bytes it does not hold (given by reference, or read from a zip only to be stored)
 * are read back from storage (their first SCAN_BYTES_PER_FILE) while READ_BYTES_PER_DEPLOY
 * lasts; the rest are listed as not_scanned. A failed read only leaves that file unchecked, and
 * the promise never rejects: the flow starts it before committing and may drop it.
 */
export async function reportFor(
  ctx: AppContext,
  files: readonly InputFile[],
  stored: readonly StoredRow[],
  existingPaths?: readonly string[],
): Promise<DeployReport> {
  try {
    return await gatherAndBuild(ctx, files, stored, existingPaths);
  } catch (err) {
    console.error("[report] could not make the deploy report", err);
    return {
      missing_references: [],
      warnings: [
        { kind: "not_scanned", message: "The files could not be checked this time; the deploy itself succeeded." },
      ],
    };
  }
}

interface StoredRow {
  path: string;
  size: number;
  storageRef: string;
  sha256: string;
  /** The content scope of its bytes; without one, nothing is remembered. */
  scope?: string | null;
}

interface ScanStep {
  kind: TextKind;
  /** Bytes at hand: held by the request, or to be read back (the first SCAN_BYTES_PER_FILE). */
  available: number;
  scanned: number;
  /** The bytes are not held by the request: read back from storage (or scanned while stored). */
  read: boolean;
}

/**
 * Which files are checked and how far: the same budgets, in the same order, as buildReport
 * (reads while READ_BYTES_PER_DEPLOY lasts, checks while SCAN_BYTES_PER_DEPLOY lasts), so a
 * remembered scan stands in for exactly the bytes buildReport would have checked. A remembered
 * content counts against both budgets as if read: the report is the same with or without it.
 */
function scanPlan(files: readonly { path: string; size: number; held: boolean }[]): (ScanStep | null)[] {
  let readBudget = READ_BYTES_PER_DEPLOY;
  let scanBudget = SCAN_BYTES_PER_DEPLOY;
  return files.map((f) => {
    if (f.size === 0) return null;
    const kind = textKind(f.path);
    let available = f.held ? f.size : undefined;
    if (!f.held && kind !== null && Math.min(f.size, SCAN_BYTES_PER_FILE) <= readBudget) {
      available = Math.min(f.size, SCAN_BYTES_PER_FILE);
      readBudget -= available;
    }
    if (kind === null || available === undefined || scanBudget <= 0) return null;
    const scanned = Math.min(available, SCAN_BYTES_PER_FILE, scanBudget);
    scanBudget -= scanned;
    return { kind, available, scanned, read: !f.held };
  });
}

const sizeOf = (f: InputFile) => f.ref?.size ?? f.source?.size ?? f.bytes.byteLength;

/**
 * Makes, while a deploy holds the bytes of its deferred files (zip entries), the scans its
 * report would read back from storage afterwards, and remembers them per content: the report
 * then finds them (gatherAndBuild) and reads nothing back. Pass the result to storeContents.
 */
export function scanWhileStoring(ctx: AppContext, scope: string, files: readonly InputFile[]): OnBytes {
  const plan = scanPlan(
    files.map((f) => ({ path: f.path, size: sizeOf(f), held: !f.ref && f.bytes.byteLength === sizeOf(f) })),
  );
  const steps = new Map(files.map((f, i) => [f, plan[i]]));
  const cache = scanCache(ctx);
  return (file, sha256, bytes) => {
    const step = steps.get(file);
    if (!step?.read) return;
    const key = `${scope}:${sha256}`;
    if (!recall(cache, key, step.kind, step.scanned)) remember(cache, key, scanBytes(step.kind, bytes, step.scanned));
  };
}

/** The report's input from the stored rows: held bytes checked, remembered scans used, the rest read back. */
async function gatherAndBuild(
  ctx: AppContext,
  files: readonly InputFile[],
  stored: readonly StoredRow[],
  existingPaths?: readonly string[],
): Promise<DeployReport> {
  const cache = scanCache(ctx);
  const held = new Map(files.map((f) => [f.path, f]));
  const heldBytes = (s: StoredRow) => {
    const f = held.get(s.path);
    return f && !f.ref && f.bytes.byteLength === s.size ? f.bytes : undefined;
  };
  const plan = scanPlan(stored.map((s) => ({ path: s.path, size: s.size, held: heldBytes(s) !== undefined })));
  const reads: {
    index: number;
    storageRef: string;
    length: number;
    kind: TextKind;
    scanned: number;
    key: string | null;
  }[] = [];
  const input: ReportFile[] = stored.map((s, index) => {
    if (s.size === 0) return { path: s.path, size: 0, bytes: new Uint8Array() };
    const bytes = heldBytes(s);
    const step = plan[index];
    if (!step) return { path: s.path, size: s.size, bytes };
    const key = s.scope ? `${s.scope}:${s.sha256}` : null;
    const scan = key === null ? undefined : recall(cache, key, step.kind, step.scanned);
    if (scan) return { path: s.path, size: s.size, scan };
    if (bytes) {
      const fresh = scanBytes(step.kind, bytes, step.scanned);
      if (key !== null) remember(cache, key, fresh);
      return { path: s.path, size: s.size, scan: fresh };
    }
    reads.push({
      index,
      storageRef: s.storageRef,
      length: step.available,
      kind: step.kind,
      scanned: step.scanned,
      key,
    });
    return { path: s.path, size: s.size };
  });
  await mapLimit(reads, READ_CONCURRENCY, async (r) => {
    try {
      const bytes = await readUpTo(ctx, r.storageRef, r.length);
      if (!bytes) return;
      const scan = scanBytes(r.kind, bytes, r.scanned);
      if (r.key !== null) remember(cache, r.key, scan);
      input[r.index]!.scan = scan;
    } catch (err) {
      console.error("[report] could not read a content back", err instanceof Error ? err.message : err);
    }
  });
  return buildReport({ files: input, existingPaths });
}
