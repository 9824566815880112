// Starts the app. Every request meets the data plane first (lib/plane/node.ts, bundled by
// `npm run build`): drop hosts, and the app host's deploy and upload bodies, are answered there
// without the framework; everything else goes to Next's request handler. The listener also records each client's socket address, in a
// header no client can set, for abuse limits when TRUST_PROXY is off, and writes one JSON line
// per request to stdout (lib/plane/log.ts logRequest; the format is in docs/decisions.md).
import { createServer } from "node:http";
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

// Checked before any dependency loads, so an older Node stops with one line, not a stack trace.
const [nodeMajor] = process.versions.node.split(".").map(Number);
if (nodeMajor < 24) {
  console.error(`dropsite needs Node.js 24 or newer (package.json engines); this is Node ${process.version}.`);
  process.exit(1);
}
const { default: next } = await import("next");

const dev = process.argv.includes("--dev");
// As `next start` does: a start that is not --dev runs in production (and gets its checks).
process.env.NODE_ENV ??= dev ? "development" : "production";
const port = Number(process.env.PORT ?? 3000);
const bind = process.env.HOST ?? "0.0.0.0";
const root = import.meta.dirname;

let planePath = path.join(root, ".next", "dropsite", "data-plane.mjs");
if (dev) planePath = await (await import("./scripts/build-data-plane.mjs")).buildDataPlane();
if (!existsSync(planePath)) {
  console.error("The data plane is not built: run `npm run build` before `npm start`.");
  process.exit(1);
}
const plane = await import(pathToFileURL(planePath).href);
try {
  plane.checkConfig();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}

const app = next({ dev, hostname: "localhost", port });
const handle = app.getRequestHandler();
await app.prepare();

const server = createServer(plane.listenerOptions, (req, res) => {
  req.headers["x-dropsite-socket-ip"] = req.socket.remoteAddress ?? "unknown";
  plane.logRequest(req, res);
  if (plane.dispatch(req, res)) return;
  handle(req, res);
});
server.listen(port, bind, () => {
  console.log(`> dropsite ready on http://localhost:${port} (${dev ? "development" : "production"})`);
  plane.warmUp();
});

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 3000).unref();
  });
}
