import { randomBytes } from "node:crypto";
import { lstat, mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import * as archiveRoute from "@/app/drops/[slug]/archive/route";
import * as filesRoute from "@/app/drops/[slug]/files/route";
import { zipForDeploy } from "@/lib/files/pack";
import { suiteContext, apiRequest } from "../support/context";
import { accountWithKey, bearer } from "../support/accounts";
import { cliAgainstRoutes } from "../support/cli";

// dropsite pull (the built CLI against the route modules on a loopback port): a version written
// back out byte for byte, rule files included, with progress on stderr; a non-empty folder only
// with --force; and never a byte outside the folder, whatever symlink or file is in the way.

const t = suiteContext({}, { freshLimiter: true });
const suite = cliAgainstRoutes("203.0.113.61", async (request, url) => {
  const m = /^\/drops\/([^/]+)\/(files|archive)$/.exec(url.pathname);
  if (m?.[2] === "files") return filesRoute.GET(request, { params: Promise.resolve({ slug: m[1]! }) });
  if (m?.[2] === "archive") return archiveRoute.GET(request, { params: Promise.resolve({ slug: m[1]! }) });
  return null;
});
const { cli } = suite;
let ip = 0;

const enc = new TextEncoder();
const SITE: Record<string, Uint8Array> = {
  "index.html": enc.encode("<h1>pulled</h1>".repeat(100)),
  _redirects: enc.encode("/old /index.html 301\n"),
  _headers: enc.encode("/*\n  X-Pulled: yes\n"),
  "empty.txt": new Uint8Array(0),
  "img/photo.bin": new Uint8Array(randomBytes(70_000)),
  "a/b/c/deep.txt": enc.encode("deep"),
  "docs/naïve 日本.html": enc.encode("<p>ü</p>"),
};

async function deployed(key: string, name: string, files: Record<string, Uint8Array>): Promise<string> {
  const res = await deployPOST(
    apiRequest(`/deploy?name=${name}`, {
      method: "POST",
      body: Buffer.from(zipForDeploy(files)),
      headers: { "content-type": "application/zip", ...bearer(key) },
      ip: `198.51.100.${(++ip % 200) + 20}`,
    }),
    { params: Promise.resolve({}) },
  );
  const body = (await res.json()) as { slug: string };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.slug;
}

/** Every file under `dir` (relative paths), symlinks not followed. */
async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (!e.isDirectory()) out.push(path.relative(dir, path.join(e.parentPath, e.name)));
  return out.sort();
}

describe("dropsite pull", () => {
  it("writes every file of the live version (or --at N) byte for byte into a folder named after the slug", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const slug = await deployed(apiKey, "pulled", { "index.html": enc.encode("one") });
    await deployed(apiKey, "pulled", SITE);

    const res = await cli(["pull", slug], apiKey);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/downloading: 100%/);
    expect(res.stderr).toMatch(/writing: 100% \(7\/7 files\)/);
    expect(res.stdout).toContain(`Pulled version 2 of ${slug}: 7 files`);
    const dir = path.join(suite.work, slug);
    expect(await tree(dir)).toEqual(Object.keys(SITE).sort());
    for (const [p, bytes] of Object.entries(SITE))
      expect(Buffer.from(await readFile(path.join(dir, p))).equals(Buffer.from(bytes)), p).toBe(true);

    const older = await cli(["pull", slug, "v1", "--at", "1", "--json"], apiKey);
    expect(older.code, older.stderr).toBe(0);
    expect(JSON.parse(older.stdout)).toMatchObject({ slug, version: 1, files: 1 });
    expect(await readFile(path.join(suite.work, "v1", "index.html"), "utf8")).toBe("one");

    // Not empty: refused without --force, nothing written; with it, the files are written again.
    await writeFile(path.join(dir, "index.html"), "changed locally");
    const refused = await cli(["pull", slug], apiKey);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("is not empty");
    expect(await readFile(path.join(dir, "index.html"), "utf8")).toBe("changed locally");
    const forced = await cli(["pull", slug, "--force", "-q"], apiKey);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toBe("");
    expect(Buffer.from(await readFile(path.join(dir, "index.html"))).equals(Buffer.from(SITE["index.html"]!))).toBe(
      true,
    );

    expect((await cli(["pull", slug, "v9", "--at", "9"], apiKey)).stderr).toContain("not_found");
    expect((await cli(["pull", slug, "--at", "x"], apiKey)).code).toBe(2);
    const other = await accountWithKey(t.ctx, "pro");
    const stranger = await cli(["pull", slug, "stranger"], other.apiKey);
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toContain("not_found");
  });

  it("never writes outside its folder: a symlinked folder, a symlinked file or a file in the way is refused", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const slug = await deployed(apiKey, "guarded", SITE);
    const outside = await mkdtemp(path.join(tmpdir(), "dropsite-outside-"));
    await writeFile(path.join(outside, "victim.txt"), "untouched");

    const cases: [string, (dir: string) => Promise<void>, RegExp][] = [
      ["folder-link", (d) => symlink(outside, path.join(d, "a")), /symbolic link/],
      ["file-link", (d) => symlink(path.join(outside, "victim.txt"), path.join(d, "index.html")), /symbolic link/],
      [
        "deep-link",
        async (d) => {
          await mkdir(path.join(d, "a", "b"), { recursive: true });
          await symlink(outside, path.join(d, "a", "b", "c"));
        },
        /symbolic link/,
      ],
      [
        "file-in-way",
        (d) => writeFile(path.join(d, "img"), "a file where a folder goes"),
        /is a file where the drop has a folder/,
      ],
    ];
    for (const [name, prepare, message] of cases) {
      const dir = path.join(suite.work, name);
      await mkdir(dir);
      await prepare(dir);
      const res = await cli(["pull", slug, name, "--force"], apiKey);
      expect(res.code, `${name}: ${res.stderr}`).toBe(2);
      expect(res.stderr, name).toMatch(message);
      expect(await tree(outside), name).toEqual(["victim.txt"]);
      expect(await readFile(path.join(outside, "victim.txt"), "utf8"), name).toBe("untouched");
    }
    expect((await lstat(path.join(suite.work, "file-link", "index.html"))).isSymbolicLink()).toBe(true);
  });
});
