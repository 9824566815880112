import { Parser } from "htmlparser2";
import type { DomEffects, FragmentScanner } from "./dom";
import { excerptOf, Lines, type Finding } from "./findings";
import { applyEffects, judgeForms, type FormInfo, type Located } from "./forms";
import { scanScript } from "./script";
import { baseFor, exfiltrationEndpoint, isOffsite, resolveUrl } from "./urls";

// The scan of one HTML document, over htmlparser2's events: forms and their password inputs
// and actions, scripts (inline, by source, event handlers) and what they do to the forms,
// documents in <iframe srcdoc> and markup scripts insert (scanned as documents, to a bounded
// depth), meta refresh, the title and headings, and the absolute URLs the page links to (for
// the Web Risk look-up). Everything is gathered first and judged at the end, against the
// document's <base href>.

export interface HtmlInput {
  file: string;
  ownHosts: ReadonlySet<string>;
  /** Brand names, lower case, whitespace collapsed. */
  brands: readonly string[];
  /** The line of the markup's first character in the file (a srcdoc, markup a script inserts). */
  firstLine?: number;
  /** How many documents this one is inside (0: the file itself). */
  depth?: number;
  /** What relative URLs resolve against when the markup has no <base href> (a srcdoc: its parent's). */
  base?: string;
}

/** Documents inside documents (srcdoc, inserted markup) are scanned this deep, no deeper. */
export const MAX_NESTING = 3;

/** An absolute URL a document links to, where it first does. */
export interface LinkedUrl {
  url: string;
  file: string;
  line: number;
}

export interface HtmlScan {
  findings: Finding[];
  urls: LinkedUrl[];
  /** Password inputs in no form (what markup inserted into a form adds to it). */
  loosePasswords: number;
}

/** A meta refresh this fast (whole seconds, as browsers read it) leaves at once. */
const INSTANT_REFRESH_SECONDS = 1;

/** Elements that hold no visible content of the page: text inside them is not "content". */
const NOT_CONTENT = new Set(["head", "title", "script", "style", "noscript", "template"]);
/** Elements that are content by themselves. */
const CONTENT_ELEMENTS = new Set([
  "img",
  "video",
  "audio",
  "iframe",
  "svg",
  "canvas",
  "input",
  "button",
  "select",
  "textarea",
  "picture",
  "object",
  "embed",
]);
/** Attributes naming a linked resource or page, by element. */
const LINK_ATTRIBUTES: Record<string, string[]> = {
  a: ["href"],
  area: ["href"],
  link: ["href"],
  form: ["action"],
  button: ["formaction"],
  input: ["formaction", "src"],
  iframe: ["src"],
  frame: ["src"],
  embed: ["src"],
  img: ["src"],
  script: ["src"],
  source: ["src"],
  video: ["src", "poster"],
  audio: ["src"],
  track: ["src"],
  object: ["data"],
};
const JS_TYPES = new Set([
  "",
  "module",
  "text/javascript",
  "application/javascript",
  "text/ecmascript",
  "application/ecmascript",
  "application/x-javascript",
  "text/jscript",
]);
const HEADINGS = new Set(["title", "h1", "h2", "h3", "h4", "h5", "h6"]);

/**
 * The delay and URL of a meta refresh's content, read as browsers do ("shared declarative refresh
 * steps" of HTML): leading digits are the seconds; the URL, if any, follows `;` or `,` and an
 * optional `url=`. Null when it is not a refresh browsers would follow.
 */
export function parseRefresh(content: string): { seconds: number; url: string | null } | null {
  let i = 0;
  const ws = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\f" || c === "\r";
  while (ws(content[i])) i++;
  const digitsStart = i;
  while (i < content.length && content[i]! >= "0" && content[i]! <= "9") i++;
  const seconds = i > digitsStart ? Number(content.slice(digitsStart, i)) : 0;
  if (i === digitsStart && content[i] !== ".") return null;
  while (i < content.length && ((content[i]! >= "0" && content[i]! <= "9") || content[i] === ".")) i++;
  if (i === content.length) return { seconds, url: null };
  if (!(content[i] === ";" || content[i] === "," || ws(content[i]))) return null;
  while (ws(content[i])) i++;
  if (content[i] === ";" || content[i] === ",") i++;
  while (ws(content[i])) i++;
  let rest = content.slice(i);
  const prefix = /^url[\t\n\f\r ]*=[\t\n\f\r ]*/i.exec(rest);
  if (prefix) rest = rest.slice(prefix[0].length);
  const quote = rest[0] === '"' || rest[0] === "'" ? rest[0] : null;
  if (quote) {
    const end = rest.indexOf(quote, 1);
    rest = end === -1 ? rest.slice(1) : rest.slice(1, end);
  }
  rest = rest.trim();
  return { seconds, url: rest === "" ? null : rest };
}

const WORD = /[\p{L}\p{N}]/u;
const LETTER = /\p{L}/u;

/** The first brand a text names as a word of its own (`PayPal`, not `pineapple` for apple), or null. */
export function brandIn(text: string, brands: readonly string[]): string | null {
  const t = text.toLowerCase().replace(/\s+/g, " ");
  for (const brand of brands) {
    for (let at = t.indexOf(brand); at !== -1; at = t.indexOf(brand, at + 1)) {
      const before = at === 0 ? "" : t[at - 1]!;
      const after = t[at + brand.length] ?? "";
      if (!WORD.test(before) && !LETTER.test(after)) return brand;
    }
  }
  return null;
}

/** The findings of one HTML document (the first bytes the scan reads of it) and the URLs it links to. */
export function scanHtml(html: string, input: HtmlInput, indexPage: boolean): HtmlScan {
  const lines = new Lines(html, input.firstLine ?? 1);
  const depth = input.depth ?? 0;
  const findings: Finding[] = [];
  const forms: FormInfo[] = [];
  const formStack: FormInfo[] = [];
  const ids = new Map<string, FormInfo | null>();
  const classes = new Map<string, FormInfo | null>();
  const formless: { form: string; line: number }[] = [];
  const formlessOverrides: { form: string; o: Located & { action: string } }[] = [];
  const scriptSources: (Located & { src: string })[] = [];
  const inlineScripts: { text: string; firstLine: number; module: boolean; atOnce: boolean }[] = [];
  const handlers: { text: string; line: number }[] = [];
  const refreshes: (Located & { content: string })[] = [];
  const links: { raw: string; line: number }[] = [];
  const headings: (Located & { text: string; tag: string })[] = [];
  const srcdocs: { text: string; line: number }[] = [];
  let passwordLine = 0;
  let loosePasswords = 0;
  let baseHref: string | null = null;
  let hidden = 0;
  let contentSeen = false;
  let script: { text: string; firstLine: number; module: boolean; atOnce: boolean } | null = null;
  let heading: (Located & { text: string; tag: string }) | null = null;

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const start = parser.startIndex;
        const end = parser.endIndex;
        const here = (): Located => ({ line: lines.at(start), excerpt: excerptOf(html.slice(start, end + 1)) });
        if (NOT_CONTENT.has(name)) hidden++;
        else if (hidden === 0 && CONTENT_ELEMENTS.has(name)) contentSeen = true;
        if (name === "base" && baseHref === null && attribs.href !== undefined) baseHref = attribs.href;
        for (const a of LINK_ATTRIBUTES[name] ?? []) {
          const v = attribs[a];
          if (v !== undefined) links.push({ raw: v, line: lines.at(start) });
        }
        for (const [a, v] of Object.entries(attribs))
          if (a.startsWith("on") && a.length > 2 && v.trim() !== "") handlers.push({ text: v, line: lines.at(start) });
        const type = (attribs.type ?? "").trim().toLowerCase();
        if (name === "form") {
          const form: FormInfo = {
            ...here(),
            action: attribs.action ?? null,
            id: attribs.id ?? null,
            name: attribs.name ?? null,
            password: false,
            overrides: [],
          };
          forms.push(form);
          formStack.push(form);
        } else if (name === "input" && type === "password") {
          passwordLine ||= lines.at(start);
          if (attribs.form !== undefined) formless.push({ form: attribs.form, line: lines.at(start) });
          else if (formStack.length > 0) formStack[formStack.length - 1]!.password = true;
          else loosePasswords++;
        }
        // What getElementById finds: the first element of an id, and the form it is or is in.
        if (attribs.id !== undefined && !ids.has(attribs.id)) ids.set(attribs.id, formStack.at(-1) ?? null);
        if (attribs.class !== undefined)
          for (const c of attribs.class.split(/[\t\n\f\r ]+/))
            if (c !== "" && !classes.has(c)) classes.set(c, formStack.at(-1) ?? null);
        if ((name === "button" || name === "input") && attribs.formaction !== undefined) {
          const o = { ...here(), action: attribs.formaction };
          if (attribs.form !== undefined) formlessOverrides.push({ form: attribs.form, o });
          else formStack[formStack.length - 1]?.overrides.push(o);
        }
        if (name === "iframe" && attribs.srcdoc !== undefined) {
          const at = html.slice(start, end).toLowerCase().indexOf("srcdoc");
          srcdocs.push({ text: attribs.srcdoc, line: lines.at(start + Math.max(0, at)) });
        }
        if (name === "script") {
          if (attribs.src !== undefined) scriptSources.push({ ...here(), src: attribs.src });
          else if (JS_TYPES.has(type))
            script = {
              text: "",
              firstLine: lines.at(end),
              module: type === "module",
              atOnce: indexPage && !contentSeen,
            };
        }
        if (name === "meta" && (attribs["http-equiv"] ?? "").trim().toLowerCase() === "refresh" && attribs.content)
          refreshes.push({ ...here(), content: attribs.content });
        if (HEADINGS.has(name) && heading === null) heading = { ...here(), text: "", tag: name };
      },
      ontext(text) {
        if (script) script.text += text;
        else if (heading) heading.text += text;
        if (hidden === 0 && !contentSeen && text.trim() !== "") contentSeen = true;
      },
      onclosetag(name) {
        if (NOT_CONTENT.has(name)) hidden = Math.max(0, hidden - 1);
        if (name === "form") formStack.pop();
        if (name === "script" && script) {
          inlineScripts.push(script);
          script = null;
        }
        if (heading && name === heading.tag) {
          headings.push(heading);
          heading = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();

  const base = baseHref === null && input.base !== undefined ? input.base : baseFor(baseHref);
  const own = input.ownHosts;
  const file = input.file;
  const byId = new Map(forms.filter((f) => f.id !== null).map((f) => [f.id!, f]));
  for (const p of formless) {
    const f = byId.get(p.form);
    if (f) f.password = true;
  }
  for (const { form, o } of formlessOverrides) byId.get(form)?.overrides.push(o);

  // Documents inside this one: an iframe's srcdoc, markup its scripts insert.
  const nested = (text: string, firstLine: number) =>
    scanHtml(text, { ...input, firstLine, depth: depth + 1, base }, false);
  const fragment: FragmentScanner<Finding> | undefined =
    depth < MAX_NESTING ? (text, firstLine) => nested(text, firstLine) : undefined;
  const urls: LinkedUrl[] = [];
  if (depth < MAX_NESTING)
    for (const d of srcdocs) {
      const inner = nested(d.text, d.line);
      findings.push(...inner.findings);
      urls.push(...inner.urls);
    }

  for (const s of scriptSources) {
    const url = resolveUrl(s.src, base);
    if (url && exfiltrationEndpoint(url)) findings.push({ rule: "exfiltration-endpoint", file, ...located(s) });
  }
  const markupPassword = passwordLine > 0;
  const effects: DomEffects[] = [];
  const scripts = [
    ...inlineScripts.map((s) => ({
      text: s.text,
      firstLine: s.firstLine,
      redirectAtOnce: s.atOnce,
      module: s.module,
    })),
    ...handlers.map((h) => ({ text: h.text, firstLine: h.line, handler: true })),
  ];
  for (const s of scripts) {
    const r = scanScript(s.text, {
      ...s,
      file,
      ownHosts: own,
      base,
      pagePassword: markupPassword,
      pageForms: forms.length > 0,
      fragment,
    });
    findings.push(...r.findings);
    effects.push(r.dom);
  }

  // Forms: where they post, and what (scripts' doings included).
  const scriptPassword = applyEffects({ forms, ids, classes }, effects);
  findings.push(...judgeForms(forms, file, base, own));

  // index.html leaving for another host at once.
  for (const r of refreshes) {
    const refresh = parseRefresh(r.content);
    if (refresh?.url === undefined || refresh.url === null) continue;
    const url = resolveUrl(refresh.url, base);
    if (url) links.push({ raw: refresh.url, line: r.line });
    if (indexPage && refresh.seconds <= INSTANT_REFRESH_SECONDS && url && isOffsite(url, own))
      findings.push({ rule: "instant-offsite-redirect", file, ...located(r), host: url.host });
  }

  // A password asked for under a brand's name.
  if (markupPassword || scriptPassword) {
    for (const h of headings) {
      if (brandIn(h.text, input.brands) === null) continue;
      findings.push({ rule: "brand-lure", file, line: h.line, excerpt: excerptOf(`<${h.tag}>${h.text}`) });
      break;
    }
  }

  for (const l of links) {
    const url = resolveUrl(l.raw, base);
    if (url && isOffsite(url, own)) urls.push({ url: url.href, file, line: l.line });
  }
  return { findings, urls, loosePasswords };
}

const located = (l: Located) => ({ line: l.line, excerpt: l.excerpt });
