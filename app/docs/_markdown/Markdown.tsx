import type { Element, ElementContent, Root as HastRoot } from "hast";
import type { Root } from "mdast";
import { toHast } from "mdast-util-to-hast";
import Link from "next/link";
import { createElement, Fragment, type ReactNode } from "react";
import { CodeBlock } from "../../_components/CodeBlock";
import { ScrollRegion } from "../../_components/ScrollRegion";
import { siteHref, slug } from "./files";

// One Markdown document as React elements. The parsing is micromark's (files.ts); this only maps
// the HTML tree mdast-util-to-hast makes onto the site's own parts: headings get GitHub's anchors
// (so links written for GitHub land), links to other docs go to their pages, code blocks get the
// copy button and tables a focusable scroll region with a name (WCAG 2.1.1) and column headers.
// Raw HTML in the Markdown is dropped (mdast-util-to-hast's default).

interface State {
  names: ReadonlySet<string>;
  /** Heading anchors used so far, for GitHub's -1, -2 on repeats. */
  ids: Map<string, number>;
  /** The latest heading's text: what a table below it is about. */
  heading: string;
  /** Table region names used so far (landmark names must differ). */
  regions: Map<string, number>;
}

/** Elements in which React allows no text (whitespace between rows included). */
const NO_TEXT = new Set(["table", "thead", "tbody", "tfoot", "tr"]);

export function Markdown({ tree, names }: { tree: Root; names: ReadonlySet<string> }) {
  const root = toHast(tree) as HastRoot;
  const state: State = { names, ids: new Map(), heading: "", regions: new Map() };
  return createElement(Fragment, null, ...root.children.map((n) => render(n as ElementContent, state, "")));
}

function textOf(node: ElementContent): string {
  if (node.type === "text") return node.value;
  return node.type === "element" ? node.children.map(textOf).join("") : "";
}

/** base the first time; then GitHub's base-1, base-2 for anchors, or base (2), base (3) for names. */
function unique(map: Map<string, number>, base: string, kind: "anchor" | "name"): string {
  const seen = map.get(base);
  map.set(base, (seen ?? 0) + 1);
  return seen === undefined ? base : kind === "anchor" ? `${base}-${seen}` : `${base} (${seen + 1})`;
}

function render(node: ElementContent, s: State, parent: string): ReactNode {
  if (node.type === "text") return NO_TEXT.has(parent) && !node.value.trim() ? null : node.value;
  if (node.type !== "element") return null;
  const kids = () => node.children.map((c) => render(c, s, node.tagName));
  const tag = node.tagName;
  if (/^h[1-6]$/.test(tag)) {
    s.heading = textOf(node);
    return createElement(tag, { id: unique(s.ids, slug(s.heading), "anchor") }, ...kids());
  }
  if (tag === "pre") return <CodeBlock>{textOf(node).replace(/\n$/, "")}</CodeBlock>;
  if (tag === "table") {
    const label = unique(s.regions, s.heading ? `Table: ${s.heading}` : "Table", "name");
    return <ScrollRegion label={label}>{createElement("table", null, ...kids())}</ScrollRegion>;
  }
  if (tag === "a") {
    const href = siteHref(String(node.properties.href ?? ""), s.names);
    if (href === null) return createElement("span", null, ...kids());
    if (href.startsWith("/docs/")) return createElement(Link, { href }, ...kids());
    return createElement("a", props(node), ...kids());
  }
  if (tag === "th" && parent === "tr") return createElement("th", { scope: "col", ...props(node) }, ...kids());
  return createElement(tag, props(node), ...kids());
}

/** hast properties as React props: class lists joined, aria/data names dashed, align as a style. */
function props(node: Element): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node.properties)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "align") out.style = { textAlign: v };
    else
      out[/^(aria|data)[A-Z]/.test(k) ? k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`) : k] = Array.isArray(v)
        ? v.join(" ")
        : v;
  }
  return out;
}
