import { Parser } from "htmlparser2";
import { contentTypeFor } from "../files/content-type";
import { dropPath } from "../serve/paths";

// What a deploy's text files refer to (the deploy report, lib/deploy/report.ts): the kind of
// text a path holds, and the references written in an HTML document, a style sheet or a module,
// resolved to the drop path they ask for.

export type TextKind = "html" | "css" | "js" | "text";

export function textKind(path: string): TextKind | null {
  const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
  if (ext === "html" || ext === "htm" || ext === "xhtml") return "html";
  if (ext === "css") return "css";
  if (ext === "js" || ext === "mjs") return "js";
  return /^(text\/|application\/(json|javascript|xml|manifest\+json|ld\+json)|image\/svg\+xml)/.test(
    contentTypeFor(path),
  )
    ? "text"
    : null;
}

export const ORIGIN = "https://drop.invalid";

/** The URL of a drop file, as a browser on the drop's host sees it. */
export function fileUrl(path: string): string {
  return `${ORIGIN}/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/**
 * The drop path a reference asks for, or null when it does not ask the drop for a file:
 * fragments, URLs with a scheme or a host, template placeholders, paths no file can have.
 */
export function targetOf(ref: string, base: string): string | null {
  if (
    ref === "" ||
    ref.startsWith("#") ||
    ref.startsWith("?") ||
    ref.startsWith("//") ||
    /^[a-z][a-z0-9+.-]*:/i.test(ref)
  )
    return null;
  if (/\{\{|\{%|\$\{|<%|[{}]/.test(ref)) return null;
  let url: URL;
  try {
    url = new URL(ref, base);
  } catch {
    return null;
  }
  if (url.origin !== ORIGIN) return null;
  return dropPath(url.pathname);
}

/** The candidates of a srcset attribute (HTML's "parse a srcset attribute", without descriptors). */
function srcsetUrls(value: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (i < value.length && /[\s,]/.test(value[i]!)) i++;
    const start = i;
    while (i < value.length && !/\s/.test(value[i]!)) i++;
    let url = value.slice(start, i);
    const trailing = /,+$/.exec(url);
    if (trailing) url = url.slice(0, trailing.index);
    else {
      // Skip the descriptors up to the next comma outside parentheses.
      let depth = 0;
      while (i < value.length && (depth > 0 || value[i] !== ",")) {
        if (value[i] === "(") depth++;
        else if (value[i] === ")") depth = Math.max(0, depth - 1);
        i++;
      }
    }
    if (url) out.push(url);
  }
  return out;
}

/** url() and @import references of a style sheet. */
export function cssReferences(css: string): string[] {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, " ");
  const out: string[] = [];
  for (const m of text.matchAll(/@import\s+(["'])([^"'\n]*)\1/gi)) out.push(m[2]!);
  for (const m of text.matchAll(/\burl\(\s*(?:"([^"\n]*)"|'([^'\n]*)'|([^)"'\s]*))\s*\)/gi))
    out.push((m[1] ?? m[2] ?? m[3] ?? "").trim());
  return out;
}

/** Relative specifiers of a module's static and dynamic imports (bare specifiers are left to import maps). */
export function moduleReferences(js: string): string[] {
  const text = js.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/^\s*\/\/.*$/gm, "");
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|[^.\w$])(?:import|export)\s*(?:[\w$*{}\s,]*?\s*\bfrom\s*)?(["'])([^"'\n]+)\1/g))
    out.push(m[2]!);
  for (const m of text.matchAll(/(?:^|[^.\w$])import\s*\(\s*(["'`])([^"'`\n]+)\1\s*\)/g)) out.push(m[2]!);
  return out.filter((s) => s.startsWith("./") || s.startsWith("../") || s.startsWith("/"));
}

/** Attributes that name a resource or a page, on any element (`href` of <base> aside). */
const URL_ATTRIBUTES = ["src", "href", "poster", "xlink:href"];

const SRCSET_ATTRIBUTES = ["srcset", "imagesrcset"];

/** The references of an HTML document as written, and the href of its first <base href>. */
function htmlReferences(html: string): { refs: string[]; baseHref: string | null } {
  const refs: string[] = [];
  let baseHref: string | null = null;
  let inside: "style" | "module" | "other" | null = null;
  let inline = "";
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === "base") {
          if (baseHref === null && attribs.href !== undefined) baseHref = attribs.href.trim();
          return;
        }
        for (const a of URL_ATTRIBUTES) {
          const v = attribs[a];
          if (v === undefined) continue;
          if (name === "link" && /\b(preconnect|dns-prefetch)\b/i.test(attribs.rel ?? "")) continue;
          refs.push(v.trim());
        }
        if (name === "object" && attribs.data !== undefined) refs.push(attribs.data.trim());
        for (const a of SRCSET_ATTRIBUTES) if (attribs[a] !== undefined) refs.push(...srcsetUrls(attribs[a]));
        if (attribs.style) refs.push(...cssReferences(attribs.style));
        if (name === "style") inside = "style";
        else if (name === "script")
          inside =
            attribs.src === undefined && (attribs.type ?? "").trim().toLowerCase() === "module" ? "module" : "other";
        inline = "";
      },
      ontext(text) {
        if (inside === "style" || inside === "module") inline += text;
      },
      onclosetag(name) {
        if ((name === "style" && inside === "style") || (name === "script" && inside !== null && inside !== "style")) {
          if (inside === "style") refs.push(...cssReferences(inline));
          if (inside === "module") refs.push(...moduleReferences(inline));
          inside = null;
          inline = "";
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return { refs, baseHref };
}

export function referencesOf(kind: TextKind, text: string): { refs: string[]; baseHref: string | null } {
  if (kind === "html") return htmlReferences(text);
  if (kind === "css") return { refs: cssReferences(text), baseHref: null };
  if (kind === "js") return { refs: moduleReferences(text), baseHref: null };
  return { refs: [], baseHref: null };
}
