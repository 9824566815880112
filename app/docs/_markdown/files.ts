import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { toString } from "mdast-util-to-string";
import { gfm } from "micromark-extension-gfm";

// The project's written docs (docs/*.md), read when the pages are built: /docs/<name> renders
// one of them and /docs lists them. The files stay the single source; the site only renders them.

const DOCS_DIR = path.join(process.cwd(), "docs");

export interface Doc {
  /** The file name without .md: the page's path segment (/docs/<name>). */
  name: string;
  /** The file's first-level heading, as text. */
  title: string;
  /** Its first paragraph, as text: what the list on /docs says about it. */
  summary: string;
  tree: Root;
}

/** Parses Markdown as GitHub does (CommonMark plus tables, strikethrough, autolinks, task lists). */
export function parseMarkdown(text: string): Root {
  return fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}

let cache: Doc[] | undefined;

/** Every docs/*.md, sorted by name. */
export function allDocs(): Doc[] {
  cache ??= readdirSync(DOCS_DIR)
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => {
      const tree = parseMarkdown(readFileSync(path.join(DOCS_DIR, f), "utf8"));
      const h1 = tree.children.find((n) => n.type === "heading" && n.depth === 1);
      const first = tree.children.find((n) => n.type === "paragraph");
      return {
        name: f.slice(0, -".md".length),
        title: h1 ? toString(h1) : f,
        summary: first ? toString(first).replace(/\s+/g, " ") : "",
        tree,
      };
    });
  return cache;
}

export function findDoc(name: string): Doc | undefined {
  return allDocs().find((d) => d.name === name);
}

/**
 * Where a link of a doc points on the site: another docs/*.md becomes its page (`contract.md#limits`
 * → `/docs/contract#limits`); web, mail and in-page links stay; a relative link to anything else
 * (a source file) has no page, so null: the text is shown without a link.
 */
export function siteHref(href: string, names: ReadonlySet<string>): string | null {
  if (/^([a-z][a-z0-9+.-]*:|#)/i.test(href)) return href;
  const m = /^(?:\.\/)?([a-z0-9-]+)\.md(#.*)?$/i.exec(href);
  return m && names.has(m[1]!) ? `/docs/${m[1]}${m[2] ?? ""}` : null;
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces to hyphens. */
export function slug(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}
