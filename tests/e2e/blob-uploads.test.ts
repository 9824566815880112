import { runProgram } from "../support/run";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { startApp, type RunningApp } from "../support/app-server";
import { startBlobStandin, type BlobStandin } from "../support/blob-standin";
import { launchChromium, scriptErrors } from "../support/browser";

// Clients of an app whose bytes live in Vercel Blob (the stand-in): the landing page's drop zone
// and the command-line client deploy folders by content; files over 4 MB go straight to storage
// (from the browser a cross-origin PUT with the client token the preflight issued), smaller ones
// through the app, with one progress display of bytes and files.

let app: RunningApp;
let blob: BlobStandin;
let browser: Browser;
let page: Page;
let errors: string[];
let root: string;

beforeAll(async () => {
  blob = await startBlobStandin();
  app = await startApp({
    BLOB_READ_WRITE_TOKEN: blob.token,
    VERCEL_BLOB_API_URL: blob.apiUrl,
    VERCEL_BLOB_RETRIES: "0",
  });
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  errors = scriptErrors(page);
  root = await mkdtemp(path.join(tmpdir(), "dropsite-browser-uploads-"));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await blob?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** Writes a folder of files and picks it with the page's folder input; returns the deployed host once the result shows. */
async function deployFolder(name: string, files: Record<string, Buffer | string>): Promise<string> {
  const dir = path.join(root, name);
  for (const [rel, body] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), body);
  }
  await page.goto(app.baseUrl);
  // Every state of the progress line, however short-lived.
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { seen: string[] }).seen = seen;
    new MutationObserver(() => {
      const el = document.querySelector('[data-testid="upload-progress"]');
      if (el?.textContent && seen.at(-1) !== el.textContent) seen.push(el.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await page.getByTestId("folder-input").setInputFiles(dir);
  const link = page.getByTestId("deployed-url");
  await Promise.race([
    link.waitFor({ timeout: 90_000 }),
    page.locator(".error[role=alert]").waitFor({ timeout: 90_000 }),
  ]);
  const alert = await page.locator(".error[role=alert]").count();
  expect(alert ? await page.locator(".error[role=alert]").textContent() : "").toBe("");
  return new URL((await link.getAttribute("href"))!).host;
}

const seenProgress = () => page.evaluate(() => (window as unknown as { seen: string[] }).seen);

describe("the drop zone deploys folders by content", () => {
  it(
    "a 6 MB file goes from the browser straight to Blob; progress shows bytes and files; served byte-exact",
    { timeout: 150_000 },
    async () => {
      const big = randomBytes(6 * 1024 * 1024);
      blob.reset();
      const host = await deployFolder("with-video", { "index.html": "<h1>video page</h1>", "media/clip.bin": big });
      const direct = blob.requests.filter((r) => r.auth === "client" && r.kind === "put");
      expect(direct.map((r) => [r.status, r.bodyBytes, r.headers.origin])).toEqual([[200, big.length, app.baseUrl]]);
      // The browser asked the Blob API for CORS first (an authorization header from another origin).
      expect(blob.requests.some((r) => r.method === "OPTIONS")).toBe(true);
      await expect(seenProgress()).resolves.toEqual(
        expect.arrayContaining([expect.stringMatching(/^[01] of 2 files: [\d.]+ (B|KB|MB) of 6\.0 MB sent \(\d+%\)$/)]),
      );
      await expect(page.getByTestId("deployed-unchanged").textContent()).resolves.toBe(
        "0 of 2 files unchanged (not uploaded again).",
      );
      const served = await app.request(host, "/media/clip.bin");
      expect(served.status).toBe(200);
      expect(Buffer.compare(served.body, big)).toBe(0);
      expect((await app.request(host, "/")).text).toBe("<h1>video page</h1>");
      expect(errors).toEqual([]);
    },
  );

  it("a site of 4 MB of highly compressible text deploys from the page", { timeout: 150_000 }, async () => {
    const bundle = "export const greeting = 'hello, world';\n".repeat(60_000); // 2.4 MB
    const data = JSON.stringify(Array.from({ length: 25_000 }, (_, i) => ({ id: i, name: "item", tags: ["a", "b"] }))); // ~1.1 MB
    const text = "lorem ipsum dolor sit amet ".repeat(20_000); // 0.5 MB
    const host = await deployFolder("text-heavy", {
      "index.html": "<script src=app.js></script>",
      "app.js": bundle,
      "data.json": data,
      "notes.txt": text,
    });
    // The picked folder is the one shared top folder: not part of the paths, as for a zip.
    expect((await app.request(host, "/app.js")).text.length).toBe(bundle.length);
    expect((await app.request(host, "/data.json")).text).toBe(data);
    expect((await app.request(host, "/notes.txt")).text.length).toBe(text.length);
    expect(errors).toEqual([]);
  });
});

describe("the command-line client", () => {
  it(
    "deploys a folder with a 6 MB file straight to Blob and, on a first deploy, says nothing of unchanged files",
    { timeout: 120_000 },
    async () => {
      const dir = path.join(root, "cli-site");
      const big = randomBytes(6 * 1024 * 1024);
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, "index.html"), "<h1>cli</h1>");
      await writeFile(path.join(dir, "big.bin"), big);
      blob.reset();
      const run = await runProgram(
        process.execPath,
        [path.resolve(import.meta.dirname, "../../cli/dist/dropsite.mjs"), "deploy", dir, "--json"],
        {
          env: {
            PATH: process.env.PATH ?? "",
            HOME: root,
            NODE_ENV: "production",
            XDG_CONFIG_HOME: path.join(root, "config"),
            DROP_API_URL: app.baseUrl,
          },
        },
      );
      expect(run.code, run.stderr).toBe(0);
      // A first deploy: the server had none of the files, so nothing is said about unchanged ones.
      expect(run.stderr).not.toMatch(/unchanged/);
      expect(blob.requests.filter((r) => r.auth === "client").map((r) => [r.kind, r.status, r.bodyBytes])).toEqual([
        ["put", 200, big.length],
      ]);
      const host = new URL((JSON.parse(run.stdout) as { url: string }).url).host;
      expect(Buffer.compare((await app.request(host, "/big.bin")).body, big)).toBe(0);
    },
  );
});
