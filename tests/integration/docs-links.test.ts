import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import ignore from "ignore";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { makeTestContext, type TestContext } from "../support/context";
import { errorCodes, errorStatus } from "@/lib/errors";
import { limits } from "@/lib/plans";
import DocsPage from "@/app/docs/page";
import DocPage, { generateStaticParams } from "@/app/docs/[name]/page";

// Every docs_url the API can emit (`docs: "<anchor>"` anywhere in lib/ or app/) lands on an
// element of the docs page, and the page explains every error code and renders the plan table.

const ROOT = path.resolve(import.meta.dirname, "../..");

let t: TestContext;
let html: string;
let ids: Set<string>;

beforeAll(async () => {
  t = await makeTestContext();
  html = renderToStaticMarkup(createElement(DocsPage));
  ids = new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!));
});
afterAll(async () => {
  await t?.close();
});

/** Every `docs: "<anchor>"` value in the sources, with where it was found. */
async function anchorsInSources(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const dir of ["lib", "app"]) {
    const files = (await readdir(path.join(ROOT, dir), { recursive: true }))
      .map(String)
      .filter((f) => /\.(ts|tsx)$/.test(f));
    for (const f of files) {
      const text = await readFile(path.join(ROOT, dir, f), "utf8");
      for (const m of text.matchAll(/\bdocs:\s*["'`]([a-z0-9][a-z0-9-]*)["'`]/g)) found.set(m[1]!, `${dir}/${f}`);
    }
  }
  return found;
}

describe("docs anchors", () => {
  it("finds the anchors the error envelopes use", async () => {
    const anchors = await anchorsInSources();
    // The scan itself must work: these are known to be emitted today.
    for (const a of [
      "authentication",
      "paths",
      "zip",
      "deploy",
      "ttl",
      "named-drops",
      "limits",
      "list-drops",
      "claiming",
      "keys",
      "append",
      "plans",
    ]) {
      expect([...anchors.keys()]).toContain(a);
    }
  });

  it("every docs: anchor in lib/ and app/ exists as an id on the docs page", async () => {
    const anchors = await anchorsInSources();
    const missing = [...anchors].filter(([a]) => !ids.has(a)).map(([a, where]) => `#${a} (${where})`);
    expect(missing).toEqual([]);
  });

  it("ids are unique and the contents links point at existing ids", () => {
    const all = [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!);
    expect(all.length).toBe(new Set(all).size);
    const links = [...html.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(10);
    for (const l of links) expect(ids, `#${l}`).toContain(l);
  });
});

describe("the guide and the rendered documents (/docs/<name>)", () => {
  it("lists every document, and its links into them land on existing headings", async () => {
    const names = generateStaticParams().map((p) => p.name);
    expect(names).toContain("webhooks");
    for (const name of names) expect(html, name).toContain(`href="/docs/${name}"`);
    const deep = [...html.matchAll(/href="\/docs\/([a-z0-9-]+)#([^"]+)"/g)];
    expect(deep.length).toBeGreaterThan(10);
    for (const [, target, anchor] of deep) {
      expect(names, target).toContain(target);
      const page = renderToStaticMarkup(await DocPage({ params: Promise.resolve({ name: target! }) }));
      expect(page, `/docs → ${target}#${anchor}`).toContain(` id="${anchor}"`);
    }
  });
});

describe("docs content", () => {
  it("every error code appears with its status and advice", () => {
    for (const code of errorCodes) {
      expect(ids, code).toContain(`error-${code}`);
      const row = new RegExp(
        `<tr id="error-${code}"><td><code>${code}</code></td><td>${errorStatus[code]}</td><td>[^<]{20,}</td></tr>`,
      );
      expect(html).toMatch(row);
    }
  });

  it("renders the limits table from lib/plans.ts", () => {
    expect(html).toContain(`<th>anonymous</th><th>free</th><th>pro</th><th>team</th>`);
    const filesRow = `<th scope="row">Files per request</th><td>${limits.anonymous.filesPerRequest}</td><td>${limits.free.filesPerRequest}</td><td>${limits.pro.filesPerRequest}</td><td>${limits.team.filesPerRequest}</td>`;
    expect(html).toContain(filesRow);
    expect(html).toContain(`$${limits.pro.priceUsd}/month`);
  });

  it("quick start shows curl for HTML, JSON and zip, and an MCP config using BASE_URL", () => {
    const base = t.ctx.env.BASE_URL;
    expect(html).toContain(`-H &#x27;content-type: text/html&#x27; ${base}/deploy`);
    expect(html).toContain(`-H &#x27;content-type: application/json&#x27; ${base}/deploy`);
    expect(html).toContain(`-H &#x27;content-type: application/zip&#x27; ${base}/deploy`);
    expect(html).toContain(`&quot;url&quot;: &quot;${base}/mcp&quot;`);
  });
});

/** Relative Markdown links of a file (`[text](target)`), without web, mail and in-page links. */
function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, "");
  return [...withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^([a-z][a-z0-9+.-]*:|#)/i.test(t));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function headingAnchors(markdown: string): Set<string> {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, "");
  return new Set(
    [...withoutCode.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) =>
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-"),
    ),
  );
}

describe("links in README.md and docs/", () => {
  it("every relative link resolves to a committed file (and heading) of a fresh clone", async () => {
    const ignored = ignore().add(await readFile(path.join(ROOT, ".gitignore"), "utf8"));
    const docs = (await readdir(path.join(ROOT, "docs"))).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);
    const sources = ["README.md", ...docs];
    expect(sources).toContain("docs/contract.md");
    const broken: string[] = [];
    let checked = 0;
    for (const source of sources) {
      const text = await readFile(path.join(ROOT, source), "utf8");
      for (const link of relativeLinks(text)) {
        checked++;
        const [file = "", anchor] = decodeURI(link).split("#");
        const target = path.normalize(path.join(path.dirname(source), file));
        if (target.startsWith("..") || path.isAbsolute(target))
          broken.push(`${source}: ${link} (outside the repository)`);
        else if (ignored.ignores(target)) broken.push(`${source}: ${link} (git-ignored, not in a clone)`);
        else if (!existsSync(path.join(ROOT, target))) broken.push(`${source}: ${link} (no such file)`);
        else if (
          anchor &&
          target.endsWith(".md") &&
          !headingAnchors(await readFile(path.join(ROOT, target), "utf8")).has(anchor)
        ) {
          broken.push(`${source}: ${link} (no such heading)`);
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });

  it("the checker finds what a clone lacks", () => {
    expect(relativeLinks("[a](../shared/spec.md) [b](https://x.test) [c](#here) [d](docs/x.md#y)")).toEqual([
      "../shared/spec.md",
      "docs/x.md#y",
    ]);
    const ignored = ignore().add("test-results/\n");
    expect(ignored.ignores("test-results/screenshots/a.png")).toBe(true);
    expect(headingAnchors("## Where the contract is open\n")).toContain("where-the-contract-is-open");
  });

  it("names no file outside the repository in prose either", async () => {
    const docs = (await readdir(path.join(ROOT, "docs"))).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);
    for (const source of ["README.md", ...docs]) {
      const text = await readFile(path.join(ROOT, source), "utf8");
      expect(text, source).not.toMatch(/\.\.\/shared\/|DESIGN\.md/);
    }
  });
});
