import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["tests/**/*.test.ts"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Integration suites start servers (PostgreSQL, Redis, the built app); keep CPU use sane on 2 cores.
    maxWorkers: 2,
    fileParallelism: true,
    globalSetup: ["tests/support/global-setup.ts"],
  },
});
