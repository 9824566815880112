// Bundles the self-hosted data plane (lib/plane/node.ts) into .next/dropsite/data-plane.mjs,
// the module server.mjs loads to answer drop hosts and the deploy-body routes before Next. Run
// by `npm run build` after `next build`; server.mjs --dev runs it itself. Packages stay
// external: they load from node_modules, the same copies Next's server uses (see
// serverExternalPackages). The bundle must not load next or next-auth (the point of the data
// plane is to run without the framework); tests/unit/data-plane-bundle.test.ts checks it.
import { build } from "esbuild";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
export const DATA_PLANE = path.join(root, ".next", "dropsite", "data-plane.mjs");

/** The esbuild options of the data-plane bundle (the test builds with them too). */
export const dataPlaneOptions = {
  entryPoints: [path.join(root, "lib", "plane", "node.ts")],
  outfile: DATA_PLANE,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node24",
  packages: "external",
  tsconfig: path.join(root, "tsconfig.json"),
  logLevel: "warning",
};

export async function buildDataPlane() {
  await build(dataPlaneOptions);
  return DATA_PLANE;
}

if (process.argv[1] === import.meta.filename) {
  await buildDataPlane();
  console.log(`data plane: ${path.relative(root, DATA_PLANE)}`);
}
