import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { readFileSync } from "node:fs";
import { limits } from "@/lib/plans";
import { listQuerySchema } from "@/lib/schemas";

// The built CLI's help states the numbers the server enforces: read from lib/plans.ts and the
// list query's schema at build time, never typed into the help text.

const CLI = path.resolve(import.meta.dirname, "../../cli/dist/dropsite.mjs");
const help = async (command: string) => (await promisify(execFile)(process.execPath, [CLI, command, "--help"])).stdout;

describe("CLI help numbers", () => {
  it("list --help gives the list query's bounds and default", async () => {
    const limit = listQuerySchema.shape.limit;
    expect(await help("list")).toContain(
      `(limit ${limit.unwrap().minValue}-${limit.unwrap().maxValue}, default ${limit.parse(undefined)})`,
    );
  });
  it("deploy --help gives the smallest ttl any plan accepts", async () => {
    const min = Math.min(...Object.values(limits).map((l) => l.ttlMinSeconds));
    expect(await help("deploy")).toContain(`lifetime in seconds (at least ${min};`);
  });
});

describe("CLI bundle", () => {
  // npx installs only the package's dependencies: every package the built CLI loads at run time
  // must be one of them (not a devDependency, not missing).
  it("imports only node built-ins and the package's dependencies", () => {
    const bundle = readFileSync(CLI, "utf8");
    const pkg = JSON.parse(readFileSync(path.resolve(import.meta.dirname, "../../package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const specifiers = [...bundle.matchAll(/^import\s[^;]*?from\s+"([^"]+)"/gm)].flatMap((m) => (m[1] ? [m[1]] : []));
    const packages = [
      ...new Set(
        specifiers
          .filter((s) => !s.startsWith("node:"))
          .map((s) => (s.startsWith("@") ? s.split("/").slice(0, 2).join("/") : s.split("/", 1).join(""))),
      ),
    ];
    expect(specifiers.length).toBeGreaterThan(0);
    expect(packages.filter((name) => !(name in pkg.dependencies))).toEqual([]);
  });
});
