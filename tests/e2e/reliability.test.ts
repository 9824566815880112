import { describe, expect, it } from "vitest";
import { formatReport, runReliability, type ReliabilityReport } from "../support/reliability";

// The short version of `npm run reliability`: the built app on a real PostgreSQL under a few
// parallel clients for a few seconds, the database stopped and started again in the middle, and
// the same checker over the end state (docs/reliability.md).

describe("reliability run (short)", () => {
  it("holds every invariant through a database restart: 503s with Retry-After while down, successes after, same app process", async () => {
    const report: ReliabilityReport = await runReliability({ seconds: 8, clients: 8, outageAt: 2, outageSeconds: 2 });
    const text = formatReport(report);
    expect(report.violations, text).toBe(0);
    const answered = (route: string) => Object.values(report.outcomes[route] ?? {}).reduce((n, c) => n + c, 0);
    expect(report.invariants.map((i) => i.violations.length)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    // Round 4's durable writes were exercised: views counted, and operators, reports and a team wrote.
    const checked = (prefix: string) => report.invariants.find((i) => i.name.startsWith(prefix))?.checked ?? "";
    expect(checked("every view answered is counted once"), text).toMatch(/^[1-9]\d* views/);
    const durable = ["POST /admin/blocks", "POST /reports", "PATCH /teams/{team}/members/{account}"];
    expect(
      durable.reduce((n, route) => n + answered(route), 0),
      text,
    ).toBeGreaterThan(0);
    // The outbox was exercised: events were recorded and the app's worker delivered them.
    const outbox = report.invariants.find((i) => i.name.startsWith("every committed change has exactly one event"));
    expect(outbox?.checked, text).toMatch(/^[1-9]\d* events .*deliveries [1-9]\d* delivered/);
    // The mix rolled drops back and retried writes with their idempotency keys.
    expect(
      answered("POST /drops/{slug}/rollback") + answered("POST /deploy?name (redeploy) (retried)"),
      text,
    ).toBeGreaterThan(0);
    const down503 = Object.values(report.duringOutage).reduce((n, o) => n + (o["503"] ?? 0), 0);
    expect(down503, text).toBeGreaterThan(0);
    expect(report.successesAfterRestart, text).toBeGreaterThan(0);
    expect(report.faults.databaseRestarts).toBe(1);
    expect(report.faults.recoveryMs, text).not.toBeNull();
    expect(report.faults.appPidAfter).toBe(report.faults.appPid);
  }, 300_000);
});
