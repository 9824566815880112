import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { parse } from "yaml";

// The GitHub Action runs from the repository's tree: action/dist/index.mjs is committed, and a
// change to action/src (or to what it bundles: the typed client, lib/files, the CLI's folder
// walk, a package) must come with the file the build writes from it. This builds it again into a
// temporary file with the project's own script and compares the two byte for byte.

const ROOT = path.resolve(import.meta.dirname, "../..");
const DIST = path.join(ROOT, "action/dist/index.mjs");

describe("action/dist", () => {
  it("is what scripts/build-action.mjs builds from the sources today", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "dropsite-action-dist-"));
    try {
      const out = path.join(dir, "index.mjs");
      await promisify(execFile)(process.execPath, ["scripts/build-action.mjs", "--out", out], { cwd: ROOT });
      const built = await readFile(out, "utf8");
      const committed = await readFile(DIST, "utf8").catch(() => "(missing)");
      expect(built.length).toBeGreaterThan(10_000);
      // Not toEqual on a megabyte of text: say where they part, and how to mend it.
      const at = [...built].findIndex((ch, i) => committed[i] !== ch);
      expect(
        built === committed
          ? "same"
          : `differs from character ${at === -1 ? built.length : at}: run npm run build (or node scripts/build-action.mjs) and commit action/dist`,
      ).toBe("same");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("is what action.yml runs, on node24, with the inputs and outputs of the design", async () => {
    const meta = parse(await readFile(path.join(ROOT, "action/action.yml"), "utf8")) as {
      inputs: Record<string, { required?: boolean; default?: string }>;
      outputs: Record<string, unknown>;
      runs: { using: string; main: string };
    };
    expect(meta.runs).toEqual({ using: "node24", main: "dist/index.mjs" });
    expect(Object.keys(meta.inputs).sort()).toEqual(
      ["api-key", "base-url", "comment", "github-token", "name", "path", "render-check"].sort(),
    );
    expect(meta.inputs["api-key"]?.required).toBe(true);
    expect(meta.inputs.path?.default).toBe(".");
    expect(meta.inputs.comment?.default).toBe("true");
    expect(meta.inputs["render-check"]?.default).toBe("true");
    expect(Object.keys(meta.outputs).sort()).toEqual(["alias-url", "render-status", "url", "version", "version-url"]);
  });
});
