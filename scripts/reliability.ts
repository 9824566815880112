// npm run reliability [-- --seconds 30 --clients 50 --outage-at 12 --outage 6 --s3]
//
// The command line of the reliability run (tests/support/reliability.ts: the built app on a real
// PostgreSQL server under parallel clients, the database stopped and started in the middle, then
// the invariants of docs/reliability.md checked). --s3 keeps the bytes in an S3 bucket (s3rver on
// loopback) that stops and starts with the database, then once more on its own. Exits 1 on any
// violation.
import { formatReport, runReliability } from "../tests/support/reliability";

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isFinite(n) || n <= 0) {
    console.error(`--${name} needs a positive number`);
    process.exit(2);
  }
  return n;
}

const seconds = flag("seconds", 30);
const report = await runReliability({
  seconds,
  clients: flag("clients", 50),
  outageAt: flag("outage-at", Math.round(seconds * 0.4)),
  outageSeconds: flag("outage", Math.max(1, Math.round(seconds * 0.2))),
  log: (l) => console.log(l),
  s3: process.argv.includes("--s3"),
});
console.log(`\n${formatReport(report)}`);
if (process.argv.includes("--json")) console.log(JSON.stringify(report, null, 2));
process.exitCode = report.violations === 0 ? 0 : 1;
