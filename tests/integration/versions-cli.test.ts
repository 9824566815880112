import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import * as versionsRoute from "@/app/drops/[slug]/versions/route";
import * as rollbackRoute from "@/app/drops/[slug]/rollback/route";
import { serveGET } from "../support/serve";
import { suiteContext, dropRequest } from "../support/context";
import { accountWithKey } from "../support/accounts";
import { cliAgainstRoutes } from "../support/cli";

// The command-line client (cli/dist/dropsite.mjs, built by scripts/build-cli.mjs) against the
// route modules of this suite's context, served on a loopback port: versions, rollback and
// deploy --if-version.

const t = suiteContext({}, { freshLimiter: true });
const suite = cliAgainstRoutes("203.0.113.50", async (request, url) => {
  const m = /^\/drops\/([^/]+)\/(versions|rollback)$/.exec(url.pathname);
  if (url.pathname === "/deploy" && request.method === "POST")
    return deployPOST(request, { params: Promise.resolve({}) });
  if (m?.[2] === "versions") return versionsRoute.GET(request, { params: Promise.resolve({ slug: m[1]! }) });
  if (m?.[2] === "rollback") return rollbackRoute.POST(request, { params: Promise.resolve({ slug: m[1]! }) });
  return null;
});
const { cli } = suite;

describe("dropsite versions, rollback and deploy --if-version", () => {
  it("lists versions, rolls back, and refuses a stale --if-version with the live version named", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const page = path.join(suite.work, "page.html");
    await writeFile(page, "<p>one</p>");
    const first = await cli(["deploy", page, "--name", "cli-site", "--json"], apiKey);
    expect(first.code, first.stderr).toBe(0);
    const { slug, version } = JSON.parse(first.stdout) as { slug: string; version: number };
    expect(version).toBe(1);
    await writeFile(page, "<p>two</p>");
    const second = await cli(["deploy", page, "--name", "cli-site", "--if-version", "1"], apiKey);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain("Version: 2");

    await writeFile(page, "<p>three</p>");
    const stale = await cli(["deploy", page, "--name", "cli-site", "--if-version", "1"], apiKey);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("conflict");
    expect(stale.stderr).toContain("Live version: 2");
    const staleJson = await cli(["deploy", page, "--name", "cli-site", "--if-version", "1", "--json"], apiKey);
    expect(JSON.parse(staleJson.stdout)).toMatchObject({ code: "conflict", live_version: 2, status: 409 });
    expect((await cli(["deploy", page, "--if-version", "1"], apiKey)).code).toBe(2);
    expect((await cli(["deploy", page, "--name", "cli-site", "--if-version", "x"], apiKey)).code).toBe(2);

    const table = await cli(["versions", slug], apiKey);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/VERSION\s+LIVE\s+KIND\s+FILES\s+SIZE\s+CREATED/);
    expect(table.stdout).toMatch(/\n2\s+live\s+replace\s+1 /);
    const listed = JSON.parse((await cli(["versions", slug, "--json"], apiKey)).stdout) as {
      total: number;
      live_version: number;
    };
    expect(listed).toMatchObject({ total: 2, live_version: 2 });

    const back = await cli(["rollback", slug, "1"], apiKey);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toContain("now serves version 1");
    expect(await (await serveGET(dropRequest(slug, "/api/serve-drop/"))).text()).toBe("<p>one</p>");
    const missing = await cli(["rollback", slug, "9", "--json"], apiKey);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ code: "not_found", status: 404 });
    expect((await cli(["rollback", slug, "1.5"], apiKey)).code).toBe(2);
  });
});
