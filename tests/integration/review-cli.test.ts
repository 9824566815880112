import path from "node:path";
import { writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { POST as deployPOST } from "@/app/deploy/route";
import { accountWithKey } from "../support/accounts";
import { suiteContext } from "../support/context";
import { cliAgainstRoutes } from "../support/cli";
import { answerReviewRoute, reviewCall, tokenOf } from "../support/review";

// The command-line client and review: dropsite review-link <slug> prints a link once; dropsite
// comments <slug> lists the open threads (--all adds resolved ones; --json the API's answer).

const t = suiteContext({}, { freshLimiter: true });
const suite = cliAgainstRoutes("203.0.113.62", async (request, url) => {
  if (url.pathname === "/deploy" && request.method === "POST")
    return deployPOST(request, { params: Promise.resolve({}) });
  return answerReviewRoute(request, url);
});
const { cli } = suite;

describe("dropsite review-link and dropsite comments", () => {
  it("mints a link, lists open threads as text and JSON, --all adds resolved; usage and API refusals exit 2 and 1", async () => {
    const { apiKey } = await accountWithKey(t.ctx, "pro");
    const page = path.join(suite.work, "review.html");
    await writeFile(page, "<h1>Review me</h1>");
    const deployed = await cli(["deploy", page, "--json"], apiKey);
    expect(deployed.code, deployed.stderr).toBe(0);
    const { slug } = JSON.parse(deployed.stdout) as { slug: string };

    const link = await cli(["review-link", slug], apiKey);
    expect(link.code, link.stderr).toBe(0);
    expect(link.stdout).toMatch(/^http:\/\/localhost:3000\/review\/rl_[A-Za-z0-9_-]{43}\n$/);
    expect(link.stderr).toContain("Valid until");
    const token = tokenOf(link.stdout.trim());

    expect((await cli(["comments", slug], apiKey)).stdout).toBe(`${slug} has no open comments\n`);
    const a = await reviewCall("POST", `/drops/${slug}/comments`, token, {
      version: 1,
      path: "/",
      body: "Bigger <b>title</b>",
      pin: { width: 1280, x: 100, y: 40 },
      name: "Ana",
    });
    t.clock.advance(1);
    const b = await reviewCall("POST", `/drops/${slug}/comments`, apiKey, { version: 1, path: "/", body: "Typo" });
    await reviewCall("POST", `/drops/${slug}/comments/${a.body!.id}/replies`, apiKey, { body: "On it" });
    await reviewCall("PATCH", `/drops/${slug}/comments/${b.body!.id}`, apiKey, { status: "resolved" });

    const open = await cli(["comments", slug], apiKey);
    expect(open.code, open.stderr).toBe(0);
    expect(open.stdout).toContain(`${a.body!.id} [open] v1 / pin 100,40 @1280 — Ana`);
    expect(open.stdout).toContain('"Bigger <b>title</b>"');
    expect(open.stdout).toContain("On it");
    expect(open.stdout).not.toContain(b.body!.id!);
    const all = await cli(["comments", slug, "--all", "--json"], apiKey);
    const listed = JSON.parse(all.stdout) as { total: number; comments: { id: string; status: string }[] };
    expect(listed.total).toBe(2);
    expect(listed.comments.map((c) => [c.id, c.status])).toEqual([
      [a.body!.id, "open"],
      [b.body!.id, "resolved"],
    ]);

    expect((await cli(["comments"], apiKey)).code).toBe(2);
    expect((await cli(["review-link", slug, "extra"], apiKey)).code).toBe(2);
    const other = await accountWithKey(t.ctx, "pro");
    const refused = await cli(["comments", slug], other.apiKey);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("not_found");
  });
});
