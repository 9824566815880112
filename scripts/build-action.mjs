// Bundles the GitHub Action (action/src/index.ts) into one file, action/dist/index.mjs, with
// every package in it: a runner starts `node action/dist/index.mjs` with no node_modules. The
// file is committed (a repository's Action runs from its tree); `npm run build` writes it again
// and tests/unit/action-dist.test.ts fails when the committed file is not what this writes.
// `--out FILE` writes elsewhere (that test compares the two).
import path from "node:path";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "..");
const at = process.argv.indexOf("--out");
const outfile =
  at > 0 && process.argv[at + 1] ? path.resolve(process.argv[at + 1]) : path.join(root, "action", "dist", "index.mjs");

await build({
  entryPoints: [path.join(root, "action", "src", "index.ts")],
  outfile,
  absWorkingDir: root,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node24",
  // Packages written as CommonJS call require() for Node's own modules: give the ES module one.
  banner: {
    js: 'import { createRequire as __createRequire } from "node:module";\nconst require = __createRequire(import.meta.url);',
  },
  // The same bytes wherever it is built: no absolute paths, no dates.
  sourcemap: false,
  legalComments: "eof",
  tsconfig: path.join(root, "tsconfig.json"),
  logLevel: "warning",
});
console.log(`action: ${path.relative(root, outfile)}`);
