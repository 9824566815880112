import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { renderToStaticMarkup } from "react-dom/server";
import { beforeAll, describe, expect, it } from "vitest";
import DocPage, { generateStaticParams } from "@/app/docs/[name]/page";
import { allDocs, siteHref, slug } from "@/app/docs/_markdown/files";
import { limits } from "@/lib/plans";

// /docs/<name> renders docs/<name>.md: every file has its page, the page holds the file's text
// (nothing typed twice), its links land on pages and headings of the site, and it keeps the
// structure assistive technology reads: one h1, headings in order, tables with column headers.

const ROOT = path.resolve(import.meta.dirname, "../..");
let files: string[];
const pages = new Map<string, string>();

beforeAll(async () => {
  files = (await readdir(path.join(ROOT, "docs"))).filter((f) => f.endsWith(".md")).sort();
  for (const { name } of generateStaticParams()) {
    pages.set(name, renderToStaticMarkup(await DocPage({ params: Promise.resolve({ name }) })));
  }
});

const ids = (html: string) => new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!));

describe("/docs/<name>", () => {
  it("has one page per docs/*.md", () => {
    expect(files).toContain("contract.md");
    expect([...pages.keys()]).toEqual(files.map((f) => f.slice(0, -3)));
  });

  it("shows the file's own text: every paragraph's words and every code block", async () => {
    for (const f of files) {
      const md = await readFile(path.join(ROOT, "docs", f), "utf8");
      const html = pages.get(f.slice(0, -3))!;
      const text = html
        .replace(/<[^>]+>/g, "")
        .replace(/&quot;/g, '"')
        .replace(/&#x27;/g, "'")
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&amp;/g, "&");
      // The first heading, and a plain run of words from the file, appear as written.
      const h1 = /^# (.+)$/m.exec(md)![1]!.replace(/`/g, "");
      expect(text, f).toContain(h1);
      const fence = /^```[a-z]*\n([\s\S]*?)\n```/m.exec(md);
      if (fence) expect(text, f).toContain(fence[1]!.split("\n")[0]!);
    }
  });

  it("has one h1, headings that never skip a level, and unique ids", () => {
    for (const [name, html] of pages) {
      const levels = [...html.matchAll(/<h([1-6])[\s>]/g)].map((m) => Number(m[1]));
      expect(
        levels.filter((l) => l === 1),
        name,
      ).toHaveLength(1);
      expect(levels[0], name).toBe(1);
      for (let i = 1; i < levels.length; i++)
        expect(levels[i]! - levels[i - 1]!, `${name}: h${levels[i - 1]} then h${levels[i]}`).toBeLessThanOrEqual(1);
      const all = [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!);
      expect(all.length, name).toBe(new Set(all).size);
    }
  });

  it("puts every table in a named scroll region with column headers, names unique on the page", () => {
    let tables = 0;
    for (const [name, html] of pages) {
      const regions = [
        ...html.matchAll(/<div class="docs-scroll" role="region" aria-label="([^"]+)" tabindex="0"><table>/g),
      ].map((m) => m[1]!);
      const count = html.split("<table>").length - 1;
      expect(regions, name).toHaveLength(count);
      expect(new Set(regions).size, name).toBe(regions.length);
      expect(html.split('<th scope="col"').length - 1, name).toBeGreaterThanOrEqual(count * 2);
      tables += count;
    }
    expect(tables).toBeGreaterThan(5);
  });

  it("code blocks get the copy button", () => {
    const html = pages.get("webhooks")!;
    expect(html).toMatch(/<div class="code-block"><pre>curl -H &quot;authorization: Bearer \$DROP_API_KEY&quot;/);
    expect(html).toContain('aria-label="Copy this example"');
  });

  it("links to other docs go to their pages, and every in-site link lands on an existing id", () => {
    let checked = 0;
    for (const [name, html] of pages) {
      expect(html, name).not.toMatch(/href="[^"]*\.md(#|")/);
      for (const m of html.matchAll(/href="\/docs\/([a-z0-9-]+)(?:#([^"]+))?"/g)) {
        const [, target, anchor] = m;
        expect(pages.has(target!), `${name} → ${target}`).toBe(true);
        if (anchor) expect(ids(pages.get(target!)!), `${name} → ${target}#${anchor}`).toContain(anchor);
        checked++;
      }
      for (const m of html.matchAll(/href="#([^"]+)"/g)) expect(ids(html), `${name} → #${m[1]}`).toContain(m[1]);
    }
    expect(checked).toBeGreaterThan(10);
    expect(pages.get("webhooks")).toContain('href="/docs/contract#webhooks-addition"');
  });

  it("rewrites links as the site needs them", () => {
    const names = new Set(["contract", "mcp"]);
    expect(siteHref("contract.md", names)).toBe("/docs/contract");
    expect(siteHref("./mcp.md#oauth-for-connectors", names)).toBe("/docs/mcp#oauth-for-connectors");
    expect(siteHref("https://example.com/a.md", names)).toBe("https://example.com/a.md");
    expect(siteHref("#limits", names)).toBe("#limits");
    expect(siteHref("nope.md", names)).toBeNull();
    expect(siteHref("../lib/plans.ts", names)).toBeNull();
    expect(slug("Device authorisation (an agent without a key)")).toBe("device-authorisation-an-agent-without-a-key");
    expect(slug("Site rules (`_redirects`, `_headers`)")).toBe("site-rules-_redirects-_headers");
  });

  it("titles and summaries for the list on /docs come from the files", () => {
    const contract = allDocs().find((d) => d.name === "contract")!;
    expect(contract.title).toBe("The API contract (interface version 1.0.0)");
    expect(contract.summary).toMatch(/^This is the HTTP interface dropsite promises/);
  });
});

describe("numbers the Markdown states match lib/plans.ts", () => {
  // docs/contract.md's limits table is prose for people; the service reads lib/plans.ts. A change
  // to one without the other fails here.
  const MB = 1024 * 1024;
  const n = (x: number) => x.toLocaleString("en-US");
  it("docs/contract.md, Limits", async () => {
    const md = await readFile(path.join(ROOT, "docs/contract.md"), "utf8");
    const table = md.slice(md.indexOf("## Limits"), md.indexOf("\n## ", md.indexOf("## Limits") + 1));
    const row = (label: string) => table.split("\n").find((l) => l.startsWith(`| ${label} |`)) ?? "";
    expect(row("files per request")).toContain(
      `${n(limits.free.filesPerRequest)} anonymous and free, ${n(limits.pro.filesPerRequest)} paid`,
    );
    expect(row("files per drop")).toContain(n(limits.pro.filesPerDrop));
    expect(row("zip body")).toContain(
      `${limits.free.zipBytes / MB} MB free, ${limits.pro.zipBytes / MB} MB paid; unpacked at most ${limits.pro.decompressionRatio}×`,
    );
    expect(row("other bodies (HTML, JSON)")).toContain(`${limits.pro.bodyBytes / MB} MB`);
    expect(row("a drop's files in total")).toContain(
      `${limits.free.dropBytes / MB} MB anonymous and free, ${limits.pro.dropBytes / MB} MB paid`,
    );
    expect(row("`ttl`")).toContain(
      `at least ${limits.free.ttlMinSeconds} s; at most ${limits.free.ttlMaxSeconds} s on free`,
    );
    expect(row("anonymous drops")).toContain(`${limits.anonymous.ttlDefaultSeconds! / 86_400} days online`);
  });
});
