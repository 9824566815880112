import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

// One directory per run for the logs of every app the tests run and the secrets they used: the
// global teardown fails the run when a secret shows up in a log (tests/support/secrets.ts).
// Only named here (tools that read this config, such as knip, must not leave directories behind);
// it is made when the first log or secret is written.
process.env.DROPSITE_TEST_RUN_DIR ??= path.join(
  tmpdir(),
  `dropsite-test-run-${process.pid}-${randomBytes(4).toString("hex")}`,
);

// Two projects: every suite on the embedded defaults, and the deploy/serve/account suites again
// on the hosted stack (a real PostgreSQL server through node-postgres, the Vercel Blob adapter
// against the Blob stand-in).
const hostedSuites = [
  "deploy",
  "serve",
  "accounts",
  "billing",
  "vanity",
  "attacks",
  "mcp",
  "hostile-input",
  "caps",
  "contents",
  "uploads",
  "direct-uploads",
  "report",
  "mcp-agents",
  "zips",
  "content-identity",
  "drop-bounds",
  "upload-limits",
  "access",
  "error-details",
  "site-rules",
  "versions",
  "idempotency",
  "versions-mcp",
  "zip-references",
  "mcp-idempotency",
  "webhooks",
  "domains",
  "oauth",
  "drop-list",
  "stats",
  "scan",
  "teams",
  "teams-invites",
  "teams-keys",
].map((s) => `tests/integration/${s}.test.ts`);

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Suites start servers (PostgreSQL, Redis, the built app); keep CPU use sane on 2 cores.
    maxWorkers: 2,
    // gc() for the memory tests (tests/unit/garbage.test.ts, report-memory.test.ts) and the zip
    // flow's collections in process (lib/deploy/garbage.ts), as the Dockerfile's start has it.
    execArgv: ["--expose-gc"],
    reporters: ["default", "./tests/support/summary-reporter.ts"],
    globalSetup: ["./tests/support/global-setup.ts"],
    setupFiles: ["./tests/support/log-capture.ts"],
    env: { DROPSITE_TEST_RUN_DIR: process.env.DROPSITE_TEST_RUN_DIR },
    projects: [
      { extends: true, test: { name: "embedded", include: ["tests/**/*.test.ts"] } },
      { extends: true, test: { name: "hosted", include: hostedSuites, env: { TEST_STACK: "hosted" } } },
    ],
  },
});
