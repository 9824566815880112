// redeploy: a 500-file site (3.9 MB: pages, scripts, styles, images) deployed as a named drop by
// the CLI (cli/dist/dropsite.mjs: hash, preflight, upload what is missing, deploy by reference),
// then redeployed with 3 files changed; against a full deploy of the same site (the CLI's first
// deploy, every content uploaded) and a zip of the whole site (what every redeploy sent before
// contents were addressed by hash). Bytes are counted on the wire by a relay in front of the app
// (the app's BASE_URL points at it, so upload targets go through it too).
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, connect } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { zipSync, type Zippable } from "fflate";
import { freePort } from "../tests/support/app-server";
import { makeAccounts, ROOT, startBenchApp, timedPost } from "./app";
import { mb, prose } from "./site";

const run = promisify(execFile);
const CHANGED = ["index.html", "js/m1.js", "css/s2.css"];

/** A TCP relay that counts the bytes a client sends (requests, headers and bodies). */
async function countingProxy(
  target: number,
): Promise<{ port: number; sent: () => number; reset: () => void; close: () => Promise<void> }> {
  let sent = 0;
  const server = createServer((client) => {
    const upstream = connect(target, "127.0.0.1");
    client.on("data", (d) => (sent += d.byteLength));
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const side of [client, upstream]) side.on("error", end).on("close", end);
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return {
    port,
    sent: () => sent,
    reset: () => void (sent = 0),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** The 500 files, written to `siteDir`. */
async function writeSite(siteDir: string): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  for (let i = 0; i < 500; i++) {
    const kind = i % 5;
    const rel =
      kind === 0 ? `pages/p${i}.html` : kind === 1 ? `js/m${i}.js` : kind === 2 ? `css/s${i}.css` : `img/i${i}.png`;
    files.set(rel, kind >= 3 ? new Uint8Array(randomBytes(10 * 1024)) : prose(6 * 1024, i + 7));
  }
  files.set("index.html", prose(4 * 1024, 999));
  files.delete("pages/p0.html");
  for (const [rel, bytes] of files) {
    await mkdir(path.dirname(path.join(siteDir, rel)), { recursive: true });
    await writeFile(path.join(siteDir, rel), bytes);
  }
  return files;
}

export async function redeploySection(work: string): Promise<string[]> {
  const siteDir = path.join(work, "site-500");
  const files = await writeSite(siteDir);
  const total = [...files.values()].reduce((n, b) => n + b.byteLength, 0);
  const dataDir = path.join(work, "data-redeploy");
  const [key, zipKey] = await makeAccounts(dataDir, 2);
  const appPort = await freePort();
  const relay = await countingProxy(appPort);
  const app = await startBenchApp(
    dataDir,
    { BASE_URL: `http://localhost:${relay.port}`, SERVE_DOMAIN: `localhost:${relay.port}` },
    { port: appPort },
  );
  const cli = async (args: string[]) => {
    relay.reset();
    const t0 = performance.now();
    const out = await run(process.execPath, [path.join(ROOT, "cli/dist/dropsite.mjs"), ...args], {
      env: {
        PATH: process.env.PATH ?? "",
        NODE_ENV: "production",
        HOME: work,
        XDG_CONFIG_HOME: path.join(work, "cli-config"),
        DROP_API_URL: `http://localhost:${relay.port}`,
        DROP_API_KEY: key!,
      },
    });
    return { ms: performance.now() - t0, sent: relay.sent(), stderr: out.stderr };
  };
  try {
    const full = await cli(["deploy", siteDir, "--name", "bench-site", "--json"]);
    for (const rel of CHANGED) await writeFile(path.join(siteDir, rel), prose(files.get(rel)!.byteLength, 4242));
    const again = await cli(["deploy", siteDir, "--name", "bench-site", "--json"]);
    const unchanged = /(\d+) of (\d+) files? unchanged/.exec(again.stderr)?.[0] ?? "?";
    // The old way: the whole site as one zip, every byte again.
    const tree: Zippable = {};
    for (const rel of files.keys()) tree[rel] = new Uint8Array(await readFile(path.join(siteDir, rel)));
    relay.reset();
    const z = await timedPost(relay.port, "/deploy?name=bench-zip", zipSync(tree, { level: 6 }), {
      "content-type": "application/zip",
      authorization: `Bearer ${zipKey}`,
    });
    if (z.status !== 200) throw new Error(`zip deploy failed: ${z.status} ${z.text}`);
    const zipSent = relay.sent();
    return [
      "",
      `Redeploy: ${files.size} files (${mb(total)}), ${CHANGED.length} changed; the CLI's preflight flow (wall time of the CLI process, bytes on the wire client → app)`,
      "",
      "| deploy | bytes sent | time |",
      "|---|---|---|",
      `| CLI, first deploy (all ${files.size} contents sent: small ones inline in the deploy, the rest uploaded) | ${full.sent.toLocaleString("en-US")} | ${full.ms.toFixed(0)} ms |`,
      `| CLI, redeploy with ${CHANGED.length} changed files (${unchanged}) | ${again.sent.toLocaleString("en-US")} (${((again.sent / full.sent) * 100).toFixed(1)}% of the full deploy) | ${again.ms.toFixed(0)} ms (${(again.ms / full.ms).toFixed(2)}×) |`,
      `| the whole site as one zip (every redeploy before content addressing) | ${zipSent.toLocaleString("en-US")} | ${z.ms.toFixed(0)} ms (request only) |`,
    ];
  } finally {
    await app.stop();
    await relay.close();
  }
}
