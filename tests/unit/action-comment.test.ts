import { describe, expect, it } from "vitest";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfm } from "micromark-extension-gfm";
import { gfmFromMarkdown } from "mdast-util-gfm";
import type { Nodes } from "mdast";
import { code, closedComment, hasMarker, markerFor, previewComment, safeUrl } from "@/action/src/comment";
import { planFor } from "@/action/src/event";

// The Action's pull-request comment and its reading of GitHub's events (action/src), as pure
// functions. The comment is parsed as GitHub-flavoured Markdown: text from the drop or the pull
// request must land inside code spans, never as a link, image, HTML (a second marker) or mention.

const md = (s: string) => fromMarkdown(s, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
function nodes(tree: Nodes, kind: string): Nodes[] {
  const out: Nodes[] = tree.type === kind ? [tree] : [];
  if ("children" in tree) for (const c of tree.children) out.push(...nodes(c, kind));
  return out;
}

const HOSTILE =
  "@octocat <!-- dropsite-preview name=site --> [click](https://evil.test) ![x](https://evil.test/x.png) `tick` ``two``\n\nnew paragraph <b>bold</b> | pipe";

const facts = {
  name: "site",
  number: 42,
  branch: HOSTILE,
  headSha: "0123456789abcdef0123",
  aliasUrl: "http://site---pr-42.localhost:3000/",
  version: 3,
  versionUrl: "http://abc---v3.localhost:3000/",
  liveUrl: "http://abc.localhost:3000/",
  openComments: 2,
  render: {
    status: "problems",
    title: HOSTILE,
    http_status: 200,
    blank: false,
    page_errors: [HOSTILE],
    console_errors: [{ text: HOSTILE, location: "http://abc---v3.localhost:3000/app.js:1:1" }],
    failed_requests: [{ url: "http://abc---v3.localhost:3000/missing.css", status: 404 }],
    screenshots: { desktop: "http://localhost:3000/previews/0123456789abcdef0123456789abcdef.png", phone: null },
  },
};

describe("the pull request's comment", () => {
  it("opens with the marker, and only the first line can make a comment the Action's", () => {
    const body = previewComment(facts);
    expect(body.startsWith(`${markerFor("site")}\n`)).toBe(true);
    expect(hasMarker(body, "site")).toBe(true);
    expect(hasMarker(body, "other")).toBe(false);
    // The marker quoted later (as a reviewer would) does not count.
    expect(hasMarker(`Look at this:\n${markerFor("site")}`, "site")).toBe(false);
  });

  it("holds the alias URL, the version URL, the open review comments, the problems and the desktop screenshot", () => {
    const body = previewComment(facts);
    expect(body).toContain("**Preview:** http://site---pr-42.localhost:3000/");
    expect(body).toContain("**This version (3):** http://abc---v3.localhost:3000/");
    expect(body).toContain("**Open review comments:** 2");
    expect(body).toContain("Failed request: `http://abc---v3.localhost:3000/missing.css` (HTTP 404)");
    const images = nodes(md(body), "image") as { url: string }[];
    expect(images.map((i) => i.url)).toEqual([facts.render.screenshots.desktop]);
  });

  it("puts text from the drop and the pull request in code spans: no link, image, HTML, mention or second marker from it", () => {
    const tree = md(previewComment(facts));
    const html = nodes(tree, "html") as { value: string }[];
    expect(html.map((h) => h.value)).toEqual([markerFor("site")]);
    expect((nodes(tree, "link") as { url: string }[]).filter((l) => l.url.includes("evil"))).toEqual([]);
    expect((nodes(tree, "image") as { url: string }[]).filter((l) => l.url.includes("evil"))).toEqual([]);
    const text = (nodes(tree, "text") as { value: string }[]).map((t) => t.value).join(" ");
    expect(text).not.toContain("@octocat");
    expect(text).not.toContain("<b>");
    const spans = (nodes(tree, "inlineCode") as { value: string }[]).map((c) => c.value);
    // The branch, the title, the exception and the console error: each one whole, on one line.
    expect(spans.filter((s) => s.startsWith("@octocat <!-- dropsite-preview")).length).toBe(4);
    expect(spans.every((s) => !s.includes("\n"))).toBe(true);
  });

  it("fences a code span with more backticks than it holds, and cuts long text short", () => {
    expect(code("a `b` c")).toBe("`` a `b` c ``");
    expect(code("x".repeat(500)).length).toBeLessThan(210);
    expect(code("")).toBe("` `");
  });

  it("writes only plain http(s) URLs from the API", () => {
    expect(safeUrl("https://site---pr-1.example.com/")).toBe("https://site---pr-1.example.com/");
    expect(safeUrl("javascript:alert(1)")).toBeNull();
    expect(safeUrl("https://x.test/a)b")).toBeNull();
    expect(safeUrl("https://x.test/ ![i](y)")).toBeNull();
    expect(previewComment({ ...facts, aliasUrl: null })).toContain("**Preview:** (none)");
  });

  it("says the preview is gone once the pull request is closed", () => {
    const body = closedComment("site", 42, "pr-42");
    expect(hasMarker(body, "site")).toBe(true);
    expect(body).toContain("its preview `pr-42` is gone");
  });
});

const base = { full_name: "acme/site" };
const pr = (action: string, headRepo: string | null) => ({
  action,
  number: 42,
  pull_request: {
    number: 42,
    head: { sha: "abc", ref: "feature", repo: headRepo === null ? null : { full_name: headRepo } },
    base: { repo: base },
  },
});

describe("what each event does", () => {
  it("previews on opened, synchronize and reopened; closes on closed", () => {
    for (const action of ["opened", "synchronize", "reopened"])
      expect(planFor("pull_request", pr(action, "acme/site"), "acme/site")).toMatchObject({
        kind: "preview",
        number: 42,
        alias: "pr-42",
        branch: "feature",
      });
    expect(planFor("pull_request", pr("closed", "acme/site"), "acme/site")).toEqual({
      kind: "close",
      number: 42,
      alias: "pr-42",
    });
    expect(planFor("pull_request", pr("labeled", "acme/site"), "acme/site").kind).toBe("skip");
  });

  it("deploys nothing for a fork's pull request, on pull_request and pull_request_target alike", () => {
    for (const event of ["pull_request", "pull_request_target"])
      for (const head of ["someone/site", null])
        for (const action of ["opened", "closed"]) {
          const plan = planFor(event, pr(action, head), "acme/site");
          expect(plan.kind).toBe("skip");
          if (plan.kind === "skip") expect(plan.reason).toMatch(/fork/);
        }
    expect(planFor("pull_request_target", pr("opened", "acme/site"), "acme/site").kind).toBe("preview");
  });

  it("deploys live on a push to the default branch only", () => {
    const repo = { full_name: "acme/site", default_branch: "main" };
    expect(planFor("push", { ref: "refs/heads/main", repository: repo }, "acme/site")).toEqual({
      kind: "live",
      branch: "main",
    });
    expect(planFor("push", { ref: "refs/heads/feature", repository: repo }, "acme/site").kind).toBe("skip");
    expect(planFor("push", { ref: "refs/tags/main", repository: repo }, "acme/site").kind).toBe("skip");
    expect(planFor("workflow_dispatch", {}, "acme/site").kind).toBe("skip");
  });
});
