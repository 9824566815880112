// Bundles the self-hosted data plane (lib/plane/node.ts) into .next/dropsite/data-plane.mjs,
// the module server.mjs loads to answer drop hosts and the deploy-body routes before Next. Run
// by `npm run build` after `next build`; server.mjs --dev runs it itself. Packages stay
// external: they load from node_modules, the same copies Next's server uses (see
// serverExternalPackages). The bundle must not load next or next-auth (the point of the data
// plane is to run without the framework); tests/unit/data-plane-bundle.test.ts checks it.
import { build } from "esbuild";
import { rm } from "node:fs/promises";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const OUT_DIR = path.join(root, ".next", "dropsite");
export const DATA_PLANE = path.join(OUT_DIR, "data-plane.mjs");

/**
 * The esbuild options of the data-plane bundle (the test builds with them too). Split: a module
 * the code imports dynamically (a store, a rate limiter, the OAuth provider, chosen by
 * configuration) is a chunk of its own, loaded with its packages only when that import runs.
 * One file would import every such package when the server starts: the S3 SDK, redis, Blob,
 * Upstash and oidc-provider on a server that uses none of them (docs/benchmarks.md).
 */
export const dataPlaneOptions = {
  entryPoints: { "data-plane": path.join(root, "lib", "plane", "node.ts") },
  outdir: OUT_DIR,
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node24",
  packages: "external",
  tsconfig: path.join(root, "tsconfig.json"),
  logLevel: "warning",
};

export async function buildDataPlane() {
  // Chunks of an earlier build are never loaded again, only left behind.
  await rm(path.join(OUT_DIR, "chunks"), { recursive: true, force: true });
  await build(dataPlaneOptions);
  return DATA_PLANE;
}

if (process.argv[1] === import.meta.filename) {
  await buildDataPlane();
  console.log(`data plane: ${path.relative(root, DATA_PLANE)}`);
}
