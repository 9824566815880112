// Starts the app. Every request meets the data plane first (lib/plane/node.ts, bundled by
// `npm run build`): drop hosts, and the app host's deploy and upload bodies, are answered there
// without the framework; everything else goes to Next's request handler. The listener also records each client's socket address, in a
// header no client can set, for abuse limits when TRUST_PROXY is off, and writes one JSON line
// per request to stdout (lib/plane/log.ts logRequest; the format is in docs/decisions.md).
// WEB_CONCURRENCY=N (N > 1) runs N such workers on the one port with node:cluster; this process
// then only checks the configuration, starts them, replaces one that dies, and stops them.
import cluster from "node:cluster";
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
const dev = process.argv.includes("--dev");
// As `next start` does: a start that is not --dev runs in production (and gets its checks).
process.env.NODE_ENV ??= dev ? "development" : "production";
const port = Number(process.env.PORT ?? 3000);
/** How long a stopping server lets requests in flight finish. */
const SHUTDOWN_GRACE_MS = 10_000;
const bind = process.env.HOST ?? "0.0.0.0";
const root = import.meta.dirname;

let planePath = path.join(root, ".next", "dropsite", "data-plane.mjs");
if (dev) planePath = await (await import("./scripts/build-data-plane.mjs")).buildDataPlane();
if (!existsSync(planePath)) {
  console.error("The data plane is not built: run `npm run build` before `npm start`.");
  process.exit(1);
}
const plane = await import(pathToFileURL(planePath).href);
// From here on every line this process writes (its own, Next's, the libraries') is a JSON log
// line (lib/log; LOG_FORMAT=text for a readable one), gathered and written in batches.
plane.routeConsole();
try {
  plane.checkConfig();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}

const { workers, warning } = plane.clusterPlan();
if (workers > 1 && cluster.isPrimary) {
  if (dev) {
    console.error("WEB_CONCURRENCY above 1 is for `npm start`; the development server runs one process.");
    process.exit(1);
  }
  // Migrations once, before the workers start together; if the database cannot be reached yet,
  // each worker opens it later as a single process does (answering 503 until then).
  await plane
    .migrateDatabase()
    .catch((err) =>
      console.error(
        "[db] could not apply the migrations before starting the workers:",
        err instanceof Error ? err.message : err,
      ),
    );
  plane.startMetrics();
  runPrimary(workers, warning);
} else {
  plane.startMetrics();
  await runWorker();
}

/** The primary of a cluster: N workers on one port, each replaced if it dies after it started. */
function runPrimary(count, warning) {
  if (warning) console.error(warning);
  console.log(`> dropsite starting ${count} workers on http://localhost:${port}`);
  const listening = new Set();
  let alive = 0;
  let stopping = false;
  let exitCode = 0;
  const fork = () => {
    alive++;
    cluster.fork();
  };
  const stop = (code) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    if (alive === 0) process.exit(exitCode);
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
    // Each worker finishes its requests in flight first (runWorker); past that, stop anyway.
    setTimeout(() => process.exit(exitCode), SHUTDOWN_GRACE_MS + 2000).unref();
  };
  cluster.on("listening", (worker) => listening.add(worker.id));
  cluster.on("exit", (worker, code, signal) => {
    alive--;
    const started = listening.delete(worker.id);
    if (stopping) {
      if (alive === 0) process.exit(exitCode);
      return;
    }
    console.error(
      `> worker ${worker.process.pid} exited (${signal ?? `code ${code}`})${started ? "; starting another" : " before it listened; stopping"}`,
    );
    if (started) fork();
    else stop(1);
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => stop(0));
  for (let i = 0; i < count; i++) fork();
}

/** One server: the whole app, on `port` (shared with the other workers under a cluster). */
async function runWorker() {
  // Traces (OTEL_EXPORTER_OTLP_ENDPOINT) start before Next loads, so its spans join them.
  await plane.startTracing();
  const { default: next } = await import("next");
  const app = next({ dev, hostname: "localhost", port });
  const handle = app.getRequestHandler();
  await app.prepare();

  const server = createServer(plane.listenerOptions, (req, res) => {
    req.headers["x-dropsite-socket-ip"] = req.socket.remoteAddress ?? "unknown";
    // The request's id, its log line and its metrics (lib/plane/log.ts).
    plane.logRequest(req, res);
    plane.traced(req, () => {
      if (plane.dispatch(req, res)) return;
      handle(req, res);
    });
  });
  const who = cluster.isWorker ? `, worker ${cluster.worker.id}, pid ${process.pid}` : "";
  server.listen(port, bind, () => {
    console.log(`> dropsite ready on http://localhost:${port} (${dev ? "development" : "production"}${who})`);
    plane.warmUp();
  });

  // Graceful: stop accepting connections, let requests in flight finish (idle keep-alive
  // connections close at once), then exit; past the grace period, exit anyway.
  let closing = false;
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
      if (closing) return;
      closing = true;
      // The counts this process holds are written before it exits (lib/stats).
      const exit = () => plane.flushStats().finally(() => process.exit(0));
      server.close(exit);
      setTimeout(exit, SHUTDOWN_GRACE_MS).unref();
    });
  }
}
