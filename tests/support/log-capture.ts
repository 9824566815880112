import { appendFileSync } from "node:fs";
import { format } from "node:util";
import { logFileFor } from "./secrets";

// Handler tests run the app's code inside the test worker: what it logs through console goes to
// this run's log directory too, so the secrets check covers it (tests/support/secrets.ts).
const file = logFileFor(`worker-${process.pid}`);
if (file) {
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[level].bind(console);
    console[level] = (...args: unknown[]) => {
      appendFileSync(file, `${format(...args)}\n`);
      original(...args);
    };
  }
}
