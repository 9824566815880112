// Compiles the command-line client (cli/dropsite.ts) into cli/dist/dropsite.mjs, the package's
// bin. Runs on every `npm install` (the prepare script) and `npm run build`, so `npx dropsite`
// never needs a build step by hand. The shared modules it imports (lib/files/ignore.ts,
// lib/patterns.ts, lib/plans.ts, lib/schemas.ts) are bundled in; the packages they use stay
// external and load from node_modules at run time: ignore, zod and tldts, all of them
// `dependencies` of the package (a test of the CLI's import list keeps this true).
import { build } from "esbuild";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const CLI = path.join(root, "cli", "dist", "dropsite.mjs");

await build({
  entryPoints: [path.join(root, "cli", "dropsite.ts")],
  outfile: CLI,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  banner: { js: "#!/usr/bin/env node" },
  tsconfig: path.join(root, "tsconfig.json"),
  logLevel: "warning",
});
console.log(`cli: ${path.relative(root, CLI)}`);
