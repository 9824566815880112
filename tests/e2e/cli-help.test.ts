import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { limits } from "@/lib/plans";
import { listQuerySchema } from "@/lib/schemas";

// The built CLI's help states the numbers the server enforces: read from lib/plans.ts and the
// list query's schema at build time, never typed into the help text.

const CLI = path.resolve(import.meta.dirname, "../../cli/dist/dropsite.mjs");
const help = async (command: string) => (await promisify(execFile)(process.execPath, [CLI, command, "--help"])).stdout;

describe("CLI help numbers", () => {
  it("list --help gives the list query's bounds and default", async () => {
    const limit = listQuerySchema.shape.limit;
    expect(await help("list")).toContain(`(limit ${limit.unwrap().minValue}-${limit.unwrap().maxValue}, default ${limit.parse(undefined)})`);
  });
  it("deploy --help gives the smallest ttl any plan accepts", async () => {
    const min = Math.min(...Object.values(limits).map((l) => l.ttlMinSeconds));
    expect(await help("deploy")).toContain(`lifetime in seconds (at least ${min};`);
  });
});
