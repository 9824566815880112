// Compiles the command-line client (cli/dropsite.ts) into cli/dist/dropsite.mjs, the package's
// bin, and the typed client (client/index.ts) into client/dist/index.mjs. Runs on every `npm
// install` (the prepare script) and `npm run build`, so `npx dropsite` never needs a build step
// by hand. The shared modules it imports (lib/files/ignore.ts,
// lib/patterns.ts, lib/plans.ts, lib/schemas/) and the typed client (client/index.ts) are bundled
// in; the packages they use stay external and load from node_modules at run time: openapi-fetch,
// ignore, zod and tldts, all of them `dependencies` of the package (a test of the CLI's import
// list keeps this true).
import path from "node:path";

// A production install (`npm ci --omit=dev`) has no esbuild: the prepare script passes
// --if-available and the CLI comes from the build stage (`npm run build`) instead.
const esbuild = await import("esbuild").catch(() => null);
if (!esbuild) {
  if (!process.argv.includes("--if-available"))
    throw new Error("cli: esbuild is not installed (npm ci without --omit=dev)");
  console.log("cli: esbuild is not installed (a production install); `npm run build` builds the CLI");
  process.exit(0);
}
const { build } = esbuild;

const root = path.resolve(import.meta.dirname, "..");
const CLI = path.join(root, "cli", "dist", "dropsite.mjs");

await build({
  entryPoints: [path.join(root, "cli", "dropsite.ts")],
  outfile: CLI,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node24",
  packages: "external",
  banner: { js: "#!/usr/bin/env node" },
  tsconfig: path.join(root, "tsconfig.json"),
  logLevel: "warning",
});
console.log(`cli: ${path.relative(root, CLI)}`);

// The typed client (client/index.ts), the package's `exports["./client"]`: openapi-fetch stays a
// dependency loaded from node_modules, as the CLI's packages do.
const CLIENT = path.join(root, "client", "dist", "index.mjs");
await build({
  entryPoints: [path.join(root, "client", "index.ts")],
  outfile: CLIENT,
  bundle: true,
  platform: "neutral",
  format: "esm",
  target: "node24",
  packages: "external",
  tsconfig: path.join(root, "tsconfig.json"),
  logLevel: "warning",
});
console.log(`client: ${path.relative(root, CLIENT)}`);
