import type { Reporter, TestModule } from "vitest/node";

// Prints the plain closing line "N passed, N failed[, N skipped]" after vitest's own summary,
// so any tool reading the end of the log sees how many tests ran. A test that was meant to run
// but never did because its file or suite failed around it (a failing beforeAll, an import
// error) counts as failed, not skipped: a red run never reads "0 failed".
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      const moduleFailed = m.state() === "failed";
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else if (moduleFailed && t.options.mode === "run") failed++;
        else skipped++;
      }
      if (moduleFailed && [...m.children.allTests()].length === 0) failed++;
    }
    console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
  }
}
