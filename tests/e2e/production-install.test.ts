import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { startApp, type RunningApp } from "../support/app-server";

// The production image's steps (README, "Production image"; the Dockerfile): the built app is
// copied without node_modules, `npm ci` installs the dependencies alone (NODE_ENV=production
// omits devDependencies, and the prepare script must not need them), and `npm start` serves.

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
let work: string;
let app: RunningApp | undefined;

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), "dropsite-prod-"));
  const { stdout } = await run("git", ["ls-files", "-z"], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  for (const file of stdout.split("\0").filter(Boolean)) {
    if (!existsSync(path.join(ROOT, file))) continue;
    await mkdir(path.dirname(path.join(work, file)), { recursive: true });
    await cp(path.join(ROOT, file), path.join(work, file));
  }
  // The build stage's output: Next's build and the data plane (not its cache), and the CLI.
  await cp(path.join(ROOT, ".next"), path.join(work, ".next"), {
    recursive: true,
    filter: (src) => !src.includes(`${path.sep}.next${path.sep}cache`),
  });
  await cp(path.join(ROOT, "cli", "dist"), path.join(work, "cli", "dist"), { recursive: true });
  await run("npm", ["ci", "--no-audit", "--no-fund"], {
    cwd: work,
    env: { ...process.env, NODE_ENV: "production" },
    timeout: 300_000,
    maxBuffer: 32 * 1024 * 1024,
  });
}, 360_000);

afterAll(async () => {
  await app?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe("a production install (npm ci with NODE_ENV=production) of the built app", () => {
  it("leaves every devDependency out and still runs the prepare script", () => {
    // playwright-core is a dependency since the render check drives a browser with it.
    for (const dev of ["esbuild", "vitest", "eslint", "tsx", "drizzle-kit"]) {
      expect(existsSync(path.join(work, "node_modules", dev)), dev).toBe(false);
    }
    expect(existsSync(path.join(work, "node_modules", "next"))).toBe(true);
    // instrumentation.ts loads @vercel/otel (and its OpenTelemetry peers) when traces are on.
    for (const runtime of ["@vercel/otel", "@opentelemetry/sdk-logs", "@opentelemetry/instrumentation"]) {
      expect(existsSync(path.join(work, "node_modules", runtime)), runtime).toBe(true);
    }
    expect(existsSync(path.join(work, "cli", "dist", "dropsite.mjs"))).toBe(true);
  });

  it("starts with npm start's command and deploys and serves a drop", async () => {
    app = await startApp({}, { cwd: work });
    const deployed = await app.request(`localhost:${app.port}`, "/deploy", {
      method: "POST",
      headers: { "content-type": "text/html" },
      body: "<h1>from a production install</h1>",
    });
    expect(deployed.status).toBe(200);
    const { slug } = deployed.json() as { slug: string };
    const page = await app.request(`${slug}.localhost:${app.port}`, "/");
    expect(page.status).toBe(200);
    expect(page.text).toBe("<h1>from a production install</h1>");
  });
});
