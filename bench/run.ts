// npm run bench – the serve path against a minimal node:http file server (stat and read per
// request), a minimal node:http server answering the same bytes from memory, and nginx, on the
// same files, with one load generator (wrk, 64 connections); a 10 KB page with and without the
// most site rules a drop may have, and a redirect; npm start with two workers beside one; a drop
// on its custom domain against its slug host (a local DNS server holds the TXT record); a drop's
// version and alias preview hosts against its live host; the
// 10 KB page with the Prometheus metrics on against off; the
// 10 KB page on PostgreSQL with a million file rows; a drop with 100 versions against one with
// one, and the time from a rollback to the first byte of the old version; 5,000 drops at random,
// also with half the requests on their preview hosts; a 900-file zip deploy
// against `unzip -q` with the server's memory growth; a redeploy of 500 files with 3 changed
// through the CLI's preflight flow against a full deploy. Not a test: numbers vary by machine;
// results are recorded in docs/benchmarks.md (which describes the method and the variables).
//
// The app is started as the tests start it (tests/support/app-server.ts). Needs the built app
// (`npm run build`), and the Debian packages nginx and wrk (serve), PostgreSQL 15 (workers, pg,
// versions, longtail, zip), unzip (zip) and zip (archive: without it the archive is timed alone).
// BENCH_ONLY=serve,rules,... runs only the named sections.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import path from "node:path";
import { ROOT } from "./app";
import { domainsSection } from "./domains";
import { longtailSection } from "./longtail";
import { metricsSection } from "./metrics";
import { pgSection } from "./pg";
import { previewsSection } from "./previews";
import { redeploySection } from "./redeploy";
import { renderSection } from "./render";
import { rulesSection } from "./rules";
import { safetySection } from "./safety";
import { serveSection } from "./serve";
import { servedSite, type ServedSite } from "./site";
import { statsSection } from "./stats";
import { versionsSection } from "./versions";
import { workersSection } from "./workers";
import { zipSection } from "./zip";
import { archiveSection } from "./archive";

/** The sections, in the order they run. */
const SECTIONS: Record<string, (work: string, site: ServedSite) => Promise<string[]>> = {
  serve: serveSection,
  rules: rulesSection,
  workers: workersSection,
  domains: domainsSection,
  previews: previewsSection,
  metrics: metricsSection,
  stats: statsSection,
  safety: safetySection,
  pg: (work, site) => (process.env.BENCH_SKIP_PG === "1" ? Promise.resolve([]) : pgSection(work, site)),
  versions: versionsSection,
  longtail: (work, site) => (process.env.BENCH_SKIP_PG === "1" ? Promise.resolve([]) : longtailSection(work, site)),
  zip: zipSection,
  archive: archiveSection,
  redeploy: redeploySection,
  render: renderSection,
};

const ONLY = new Set((process.env.BENCH_ONLY ?? Object.keys(SECTIONS).join(",")).split(",").map((x) => x.trim()));
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

async function main() {
  if (!existsSync(path.join(ROOT, ".next", "dropsite", "data-plane.mjs"))) throw new Error("run `npm run build` first");
  const unknown = [...ONLY].filter((name) => !(name in SECTIONS));
  if (unknown.length)
    throw new Error(`BENCH_ONLY: no section ${unknown.join(", ")} (the sections: ${Object.keys(SECTIONS).join(", ")})`);
  const work = await mkdtemp(path.join(tmpdir(), "dropsite-bench-"));
  const rows: string[] = [];
  const loadBefore = load();
  try {
    const site = await servedSite(work);
    for (const [name, section] of Object.entries(SECTIONS))
      if (ONLY.has(name)) rows.push(...(await section(work, site)));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB, Node ${process.version}`,
  );
  console.log(`Load average before: ${loadBefore}; after: ${load()}\n`);
  console.log(rows.join("\n"));
}

await main();
