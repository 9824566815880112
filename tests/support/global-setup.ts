import { readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { findLeaks } from "./secrets";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Removes the run directories of earlier runs that never reached their teardown (killed): those
 * whose vitest process (the pid in the name) is gone, once they are a day old (a run that found
 * a leak keeps its directory to look at, for that long).
 */
function sweepAbandonedRuns(current: string | undefined): void {
  for (const name of readdirSync(tmpdir())) {
    const m = /^dropsite-test-run-(\d+)-[0-9a-f]+$/.exec(name);
    const dir = path.join(tmpdir(), name);
    if (!m || dir === current) continue;
    try {
      process.kill(Number(m[1]), 0);
      continue; // still running
    } catch {
      /* gone */
    }
    try {
      if (Date.now() - statSync(dir).mtimeMs > DAY_MS) rmSync(dir, { recursive: true, force: true });
    } catch {
      /* removed meanwhile */
    }
  }
}

// After the whole run: no registered secret may appear in any log of it (tests/support/secrets.ts).
// A leak fails the run; the run directory is kept to look at, and removed when all is clean.
export default function setup(): () => void {
  sweepAbandonedRuns(process.env.DROPSITE_TEST_RUN_DIR);
  return () => {
    const dir = process.env.DROPSITE_TEST_RUN_DIR;
    if (!dir) return;
    const leaks = findLeaks(dir);
    if (leaks.length > 0) {
      // A throw here is only printed by vitest ("error during close"): set the exit code too.
      process.exitCode = 1;
      const lines = leaks.slice(0, 30).map((l) => `  ${l.kind} (${l.preview}) in ${l.log}`);
      throw new Error(
        `Secrets found in the logs of this test run (${leaks.length}); the logs are in ${dir}/logs:\n${lines.join("\n")}`,
      );
    }
    rmSync(dir, { recursive: true, force: true });
  };
}
