import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import { POST as appendPOST } from "@/app/deploy/[slug]/route";
import * as rollbackRoute from "@/app/drops/[slug]/rollback/route";
import * as aliasesRoute from "@/app/drops/[slug]/aliases/route";
import * as aliasRoute from "@/app/drops/[slug]/aliases/[name]/route";
import { POST as preflightPOST } from "@/app/deploy/preflight/route";
import { serveGET } from "../support/serve";
import { dropRequest, suiteContext, TEST_SERVE_DOMAIN } from "../support/context";
import { accountWithKey } from "../support/accounts";
import { CLI, cliAgainstRoutes } from "../support/cli";
import { runProgram } from "../support/run";

// The command-line client and staged deploys: deploy --no-promote (with --name or --append)
// prints the new version's preview URL and leaves the live one; dropsite promote makes it live.

const t = suiteContext({}, { freshLimiter: true });
const suite = cliAgainstRoutes("203.0.113.61", async (request, url) => {
  const slug = /^\/deploy\/([^/]+)$/.exec(url.pathname)?.[1];
  const rollback = /^\/drops\/([^/]+)\/rollback$/.exec(url.pathname)?.[1];
  if (url.pathname === "/deploy/preflight") return preflightPOST(request, { params: Promise.resolve({}) });
  if (url.pathname === "/deploy" && request.method === "POST")
    return deployPOST(request, { params: Promise.resolve({}) });
  if (slug && request.method === "POST") return appendPOST(request, { params: Promise.resolve({ slug }) });
  if (rollback) return rollbackRoute.POST(request, { params: Promise.resolve({ slug: rollback }) });
  const list = /^\/drops\/([^/]+)\/aliases$/.exec(url.pathname)?.[1];
  if (list) return aliasesRoute.GET(request, { params: Promise.resolve({ slug: list }) });
  const one = /^\/drops\/([^/]+)\/aliases\/([^/]+)$/.exec(url.pathname);
  if (one) {
    const params = Promise.resolve({ slug: one[1]!, name: one[2]! });
    if (request.method === "PUT") return aliasRoute.PUT(request, { params });
    if (request.method === "DELETE") return aliasRoute.DELETE(request, { params });
  }
  return null;
});
const { cli } = suite;
const served = async (label: string, p = "/") => (await serveGET(dropRequest(label, `/api/serve-drop${p}`))).text();

describe("dropsite deploy --no-promote and dropsite promote", () => {
  it("stages a named redeploy and an append, prints their preview URLs, and promotes one", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const page = path.join(suite.work, "page.html");
    await writeFile(page, "<p>one</p>");
    const first = await cli(["deploy", page, "--name", "cli-staged", "--json"], apiKey);
    expect(first.code, first.stderr).toBe(0);
    const { slug } = JSON.parse(first.stdout) as { slug: string };
    const url = (n: number) => `http://${slug}---v${n}.${TEST_SERVE_DOMAIN}/`;

    await writeFile(page, "<p>two</p>");
    const staged = await cli(["deploy", page, "--name", "cli-staged", "--no-promote"], apiKey);
    expect(staged.code, staged.stderr).toBe(0);
    expect(staged.stdout).toContain("Version: 2 (staged:");
    expect(staged.stdout).toContain("still serves version 1");
    expect(staged.stdout).toContain(`Preview: ${url(2)}`);
    expect(staged.stdout).toContain(`dropsite promote ${slug} 2`);
    expect(await served(slug)).toBe("<p>one</p>");
    expect(await served(`${slug}---v2`)).toBe("<p>two</p>");

    const extra = path.join(suite.work, "extra");
    await mkdir(extra, { recursive: true });
    await writeFile(path.join(extra, "extra.html"), "<p>extra</p>");
    const appended = await cli(["deploy", extra, "--append", slug, "--no-promote", "--json"], apiKey);
    expect(appended.code, appended.stderr).toBe(0);
    expect(JSON.parse(appended.stdout)).toMatchObject({ version: 3, live_version: 1, promoted: false });
    expect(await served(`${slug}---v3`, "/extra.html")).toBe("<p>extra</p>");
    expect(await served(`${slug}---v3`)).toBe("<p>one</p>");

    const promoted = await cli(["promote", slug, "2"], apiKey);
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(promoted.stdout).toBe(`http://${slug}.${TEST_SERVE_DOMAIN}/ now serves version 2\n`);
    expect(await served(slug)).toBe("<p>two</p>");
    expect((await cli(["promote", slug], apiKey)).code).toBe(2);
    expect((await cli(["promote", slug, "x"], apiKey)).code).toBe(2);
    // --no-promote needs a drop to stage beside
    expect((await cli(["deploy", page, "--no-promote"], apiKey)).code).toBe(2);
  });
});

describe("dropsite aliases and dropsite alias", () => {
  it("points, moves, lists and deletes an alias; bad input exits 2 or 1 and changes nothing", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const page = path.join(suite.work, "alias.html");
    await writeFile(page, "<p>first</p>");
    const first = await cli(["deploy", page, "--name", "cli-alias", "--json"], apiKey);
    const { slug } = JSON.parse(first.stdout) as { slug: string };
    await writeFile(page, "<p>second</p>");
    expect((await cli(["deploy", page, "--name", "cli-alias", "--no-promote"], apiKey)).code).toBe(0);
    const aliasUrl = `http://${slug}---staging.${TEST_SERVE_DOMAIN}/`;

    expect((await cli(["aliases", slug], apiKey)).stdout).toBe(`${slug} has no aliases\n`);
    const set = await cli(["alias", slug, "staging", "2"], apiKey);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe(`${aliasUrl} now serves version 2\n`);
    expect(await served(`${slug}---staging`)).toBe("<p>second</p>");
    const moved = await cli(["alias", slug, "staging", "1", "--json"], apiKey);
    expect(JSON.parse(moved.stdout)).toEqual({ name: "staging", version: 1, url: aliasUrl });
    expect(await served(`${slug}---staging`)).toBe("<p>first</p>");
    const listed = await cli(["aliases", slug], apiKey);
    expect(listed.stdout).toMatch(
      new RegExp(`^ALIAS\\s+VERSION\\s+URL\\s+UPDATED\\nstaging\\s+1\\s+${aliasUrl.replace(/[.]/g, "\\.")}`),
    );

    // Usage errors exit 2; the API's refusals exit 1; neither changes the alias.
    expect((await cli(["alias", slug, "staging"], apiKey)).code).toBe(2);
    expect((await cli(["alias", slug, "staging", "x"], apiKey)).code).toBe(2);
    const badName = await cli(["alias", slug, "v2", "2"], apiKey);
    expect(badName.code).toBe(1);
    expect(badName.stderr).toContain("invalid_name");
    expect((await cli(["alias", slug, "staging", "9"], apiKey)).code).toBe(1);
    expect(await served(`${slug}---staging`)).toBe("<p>first</p>");

    const deleted = await cli(["alias", slug, "staging", "--delete"], apiKey);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe(`Deleted alias staging of ${slug}\n`);
    expect(await served(`${slug}---staging`)).toContain("No preview named staging");
    const again = await cli(["alias", slug, "staging", "--delete"], apiKey);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("not_found");
  });
});

describe("dropsite deploy --alias, as a CI job runs it", () => {
  it("stages the version, points the alias at it in the same request, with the key from DROPSITE_API_KEY", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const page = path.join(suite.work, "ci.html");
    await writeFile(page, "<p>main</p>");
    expect((await cli(["deploy", page, "--name", "cli-ci"], apiKey)).code).toBe(0);
    await writeFile(page, "<p>pull request</p>");
    // The CI recipe's environment: DROPSITE_API_URL and DROPSITE_API_KEY, no DROP_* names.
    const env = {
      PATH: process.env.PATH ?? "",
      HOME: suite.work,
      NODE_ENV: "production" as const,
      XDG_CONFIG_HOME: path.join(suite.work, "config-ci"),
      DROPSITE_API_URL: suite.api,
      DROPSITE_API_KEY: apiKey,
    };
    const ci = (args: string[]) => runProgram(process.execPath, [CLI, ...args], { cwd: suite.work, env });
    const staged = await ci(["deploy", page, "--name", "cli-ci", "--alias", "pr-7", "--no-promote"]);
    expect(staged.code, staged.stderr).toBe(0);
    const slug = /URL: +http:\/\/([a-z0-9]+)\./.exec(staged.stdout)?.[1];
    expect(slug).toBeDefined();
    expect(staged.stdout).toContain(`Alias:   pr-7 now serves version 2: http://${slug}---pr-7.${TEST_SERVE_DOMAIN}/`);
    expect(await served(`${slug}---pr-7`)).toBe("<p>pull request</p>");
    expect(await served(slug!)).toBe("<p>main</p>");
    // A bad alias name is the API's refusal (exit 1) and stages nothing; --alias with --grant is a usage error.
    const bad = await ci(["deploy", page, "--name", "cli-ci", "--alias", "v12", "--no-promote", "--json"]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout || bad.stderr)).toMatchObject({ code: "invalid_name" });
    expect(await served(`${slug}---v3`)).not.toBe("<p>pull request</p>");
    expect((await ci(["deploy", page, "--alias", "pr-7", "--grant", `${suite.api}/deploy/once/x`])).code).toBe(2);
  });
});
