import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import type { RenderResult } from "@/lib/schemas";
import { cliAgainstRoutes } from "../support/cli";
import { renderSuite } from "../support/render";

// `dropsite deploy --check` (the built CLI) against the deploy route of a render suite: the
// deploy answer with its render check, as text and with --json.

renderSuite();
const suite = cliAgainstRoutes("203.0.113.61", async (request, url) =>
  url.pathname === "/deploy" && request.method === "POST" ? deployPOST(request, { params: Promise.resolve({}) }) : null,
);

describe("dropsite deploy --check", () => {
  it("prints what the browser saw; --json prints the deploy answer with its render", async () => {
    const page = path.join(suite.work, "page.html");
    await writeFile(
      page,
      "<!doctype html><title>CLI</title><p>from the cli</p><script>throw new Error('cli boom')</script>",
    );
    const text = await suite.cli(["deploy", page, "--check"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("Render check: PROBLEMS");
    expect(text.stdout).toContain("Uncaught exception: cli boom");
    expect(text.stdout).toMatch(/Screenshots: http:\/\/localhost:3000\/previews\/[0-9a-f]{32}\.png \(desktop\)/);

    await writeFile(page, "<!doctype html><title>CLI</title><p>fine</p>");
    const json = await suite.cli(["deploy", page, "--check", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const answer = JSON.parse(json.stdout) as { url: string; render: RenderResult };
    expect(answer.render).toMatchObject({ status: "ok", url: answer.url, http_status: 200, title: "CLI" });

    const plain = await suite.cli(["deploy", page, "--json"]);
    expect((JSON.parse(plain.stdout) as { render?: unknown }).render).toBeUndefined();
    expect((await suite.cli(["deploy", page, "--check", "--grant", "http://127.0.0.1:1/deploy/once/dg_x"])).code).toBe(
      2,
    );
  }, 60_000);
});
