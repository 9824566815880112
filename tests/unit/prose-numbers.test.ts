import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Numbers in the docs page and the pricing cards come from lib/plans.ts and the limiter's
// constants: a limit typed into the prose would drift from what the service enforces.

const root = path.resolve(import.meta.dirname, "../..");
const pages = [
  "app/docs/page.tsx",
  "app/docs/_guide/deploying.tsx",
  "app/docs/_guide/features.tsx",
  "app/docs/_guide/reference.tsx",
  "app/docs/_guide/tables.tsx",
  "app/docs/_guide/parts.tsx",
  "app/docs/[name]/page.tsx",
  "app/_components/Pricing.tsx",
  "app/page.tsx",
];
const literals = [
  /\b900\b/,
  /\b100 MB\b/,
  /\b25 MB\b/,
  /\b10 MB\b/,
  /10,000/,
  /\b30 days\b/,
  /\b7 days\b/,
  /\b604800\b/,
  /\b\d+ per minute\b/,
  /\b\d+ (key )?mints per minute\b/,
  /\b25 live keys\b/,
];

describe("numbers in prose come from the tables", () => {
  for (const file of pages) {
    it(`${file} states no limit as a literal`, async () => {
      const text = await readFile(path.join(root, file), "utf8");
      for (const re of literals) expect(text, `${file} contains ${re}`).not.toMatch(re);
    });
  }
});
