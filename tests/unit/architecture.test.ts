import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { LAYERS } from "../../eslint.config.mjs";

// Lint enforces the layers only for what the table names: a new folder or top-level file under
// lib/ must take its place in the table (and in docs/architecture.md) or this fails.

const ROOT = path.resolve(import.meta.dirname, "../..");
const named = new Set(LAYERS.flat());

describe("the layer table", () => {
  it("names every folder and top-level module of lib/", () => {
    const entries = readdirSync(path.join(ROOT, "lib"), { withFileTypes: true }).map((e) => `lib/${e.name}`);
    expect(entries.filter((e) => !named.has(e))).toEqual([]);
  });

  it("is the table docs/architecture.md shows", () => {
    const doc = readFileSync(path.join(ROOT, "docs", "architecture.md"), "utf8");
    expect([...named].filter((entry) => !doc.includes(`\`${entry}\``))).toEqual([]);
  });
});
