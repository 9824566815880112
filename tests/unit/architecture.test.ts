import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseCircular, parseDependencyTree } from "dpdm";
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

// No import circle, type imports included: ESLint's import-x/no-cycle skips `import type`, so
// the serve room and the access gate once imported each other unseen. dpdm walks every import of
// the program (TypeScript's resolution, tsconfig paths) and lists the circles.
const SOURCES = ["app/**/*.ts", "app/**/*.tsx", "lib/**/*.ts", "cli/**/*.ts", "proxy.ts", "next.config.ts"];

async function circlesIn(context: string, entries: string[]): Promise<string[][]> {
  const tree = await parseDependencyTree(entries, {
    context,
    tsconfig: path.join(ROOT, "tsconfig.json"),
    transform: false,
    skipDynamicImports: false,
    include: /\.(ts|tsx|mjs|js)$/,
    exclude: /node_modules|cli\/dist/,
  });
  return parseCircular(tree);
}

describe("import circles", () => {
  it("no module of app/, lib/ or cli/ reaches itself through its imports, type imports included", async () => {
    expect(await circlesIn(ROOT, SOURCES)).toEqual([]);
  }, 120_000);

  it("a circle through a type-only import is found", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "dropsite-circle-"));
    try {
      await writeFile(path.join(dir, "a.ts"), 'import type { B } from "./b";\nexport type A = { b?: B };\n');
      await writeFile(path.join(dir, "b.ts"), 'import { type A } from "./a";\nexport type B = { a?: A };\n');
      expect(await circlesIn(dir, [path.join(dir, "a.ts")])).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

// A room over 500 lines does several jobs: split it by job. Generated files and data tables are
// not rooms: drizzle/ (migrations and their snapshots) and bench results are outside the folders
// read here, and EXEMPT names the rest, each with its reason.
const MAX_LINES = 500;
const EXEMPT: Record<string, string> = {};

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|mjs)$/.test(e.name) && !e.parentPath.includes(`${path.sep}dist`))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join("/"));
}

describe("room sizes", () => {
  it(`no file of app/, lib/, cli/ or scripts/ is over ${MAX_LINES} lines`, () => {
    const files = ["app", "lib", "cli", "scripts"].flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .filter((f) => !(f in EXEMPT))
      .map((f) => ({ file: f, lines: readFileSync(path.join(ROOT, f), "utf8").split("\n").length - 1 }))
      .filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });

  it("every exemption names a file that exists", () => {
    const files = new Set(["app", "lib", "cli", "scripts"].flatMap(sourceFiles));
    expect(Object.keys(EXEMPT).filter((f) => !files.has(f))).toEqual([]);
  });
});
