import { rmSync } from "node:fs";
import { findLeaks } from "./secrets";

// After the whole run: no registered secret may appear in any log of it (tests/support/secrets.ts).
// A leak fails the run; the run directory is kept to look at, and removed when all is clean.
export default function setup(): () => void {
  return () => {
    const dir = process.env.DROPSITE_TEST_RUN_DIR;
    if (!dir) return;
    const leaks = findLeaks(dir);
    if (leaks.length > 0) {
      // A throw here is only printed by vitest ("error during close"): set the exit code too.
      process.exitCode = 1;
      const lines = leaks.slice(0, 30).map((l) => `  ${l.kind} (${l.preview}) in ${l.log}`);
      throw new Error(`Secrets found in the logs of this test run (${leaks.length}); the logs are in ${dir}/logs:\n${lines.join("\n")}`);
    }
    rmSync(dir, { recursive: true, force: true });
  };
}
