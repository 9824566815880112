import { LONE_SURROGATE } from "../input";
import { captures, parsePattern, type Pattern } from "./pattern";
import { RULE_REFUSALS_LISTED } from "../plans";
import { REDIRECT_STATUSES, RULE_FILES, type HeaderRule, type RedirectRule, type RedirectStatus } from "./types";

// The parsers of `_redirects` and `_headers` (Netlify syntax, the subset stated in
// docs/contract.md, "Site rules", and chosen in docs/decisions.md). Pure: bytes in, rules or the
// refusals out, never a throw. Nothing is dropped silently: a line that does not parse, a
// refused header, or a file past a limit is a refusal naming the line, which the deploy turns
// into 400 invalid_request. Every bad line is named (up to RULE_REFUSALS_LISTED), so a person
// fixes them all in one go.

export interface RuleLimits {
  redirectRules: number;
  headerRules: number;
  ruleLineChars: number;
  /** Header lines in one `_headers` path block. */
  headerLinesPerRule: number;
  /** Bytes the `_headers` rules may add to one response (`Name: value` and CRLF, every matching rule). */
  addedHeaderBytes: number;
}

export interface Refusal {
  file: string;
  line: number;
  /** The line as written (shortened, control characters escaped). */
  rule: string;
  reason: string;
}

/** A refused file: its first refusal (the one the message names) and all of them, in line order, at most RULE_REFUSALS_LISTED. */
export type Parsed<T> = { ok: true; rules: T[] } | { ok: false; refusal: Refusal; refusals: Refusal[] };

/** `_redirects line 3: /a https://b.example 200 (why)`: the text of a refusal. */
export function refusalMessage(r: Refusal): string {
  return `${r.file} line ${r.line}: ${r.rule} (${r.reason})`;
}

/** The refusals of a file collected as it is read, in line order, the list bounded. */
class Refusals {
  readonly list: Refusal[] = [];
  constructor(private readonly file: string) {}
  add(line: number, text: string, reason: string): void {
    this.push({ file: this.file, line, rule: shown(text), reason });
  }
  push(r: Refusal): void {
    if (this.list.length < RULE_REFUSALS_LISTED) this.list.push(r);
  }
  result<T>(rules: T[]): Parsed<T> {
    const [first] = this.list;
    if (!first) return { ok: true, rules };
    this.list.sort((a, b) => a.line - b.line);
    return { ok: false, refusal: this.list[0]!, refusals: this.list };
  }
}

const SHOWN_CHARS = 200;

function shown(line: string): string {
  const trimmed = line.trim();
  // eslint-disable-next-line no-control-regex
  const clean = trimmed.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return clean.length > SHOWN_CHARS ? `${clean.slice(0, SHOWN_CHARS)}…` : clean;
}

interface Line {
  n: number;
  text: string;
  /**
   * Refused as text (too long, a control character, not UTF-8 or Unicode): its refusal is
   * reported already; it is kept only for its place in `_headers` (a path line or a header line
   * below one), so the file's structure around it is read as written.
   */
  refused?: true;
}

/**
 * The lines of a rules file: UTF-8 (a BOM is skipped), LF or CRLF, each within the length
 * limit and free of control characters other than tab. A bad line is refused and left out.
 */
function splitLines(input: Uint8Array | string, limits: RuleLimits, refusals: Refusals): Line[] {
  let text: string;
  if (typeof input === "string") text = input;
  else {
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(input);
    } catch {
      return splitBytes(input, limits, refusals);
    }
  }
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  const out: Line[] = [];
  for (const [i, l] of text.split("\n").entries()) {
    out.push(checkedLine(i + 1, l, limits, refusals));
  }
  return out;
}

/** The lines of bytes that are not all UTF-8: each line decoded alone, those that are not refused. */
function splitBytes(input: Uint8Array, limits: RuleLimits, refusals: Refusals): Line[] {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const out: Line[] = [];
  let n = 1;
  let start = 0;
  for (let i = 0; i <= input.length; i++) {
    if (i !== input.length && input[i] !== 0x0a) continue;
    const bytes = input.subarray(start, i);
    let text: string | undefined;
    try {
      text = decoder.decode(bytes);
    } catch {
      const shown = new TextDecoder().decode(bytes.subarray(0, SHOWN_CHARS));
      refusals.add(n, shown, "not UTF-8 text");
      out.push({ n, text: shown, refused: true });
    }
    if (text !== undefined) {
      out.push(checkedLine(n, n === 1 && text.startsWith("\uFEFF") ? text.slice(1) : text, limits, refusals));
    }
    n++;
    start = i + 1;
  }
  return out;
}

function checkedLine(n: number, raw: string, limits: RuleLimits, refusals: Refusals): Line {
  const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  if (line.length > limits.ruleLineChars) refusals.add(n, line, `longer than ${limits.ruleLineChars} characters`);
  // eslint-disable-next-line no-control-regex
  else if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(line)) refusals.add(n, line, "contains a control character");
  else if (LONE_SURROGATE.test(line)) refusals.add(n, line, "not valid Unicode");
  else return { n, text: line };
  return { n, text: line, refused: true };
}

function isComment(t: string): boolean {
  const s = t.trim();
  return s === "" || s.startsWith("#");
}

// --- _redirects ------------------------------------------------------------------------------

/** A target of a rule: a path of this drop, or an http(s) URL (3xx only). */
export interface Target {
  /** "" for a path of this drop; else scheme and authority, which placeholders never touch. */
  origin: string;
  /** The rest: literal text (already safe for a Location header) and placeholders. */
  parts: ({ text: string } | { name: string })[];
  /** The target sets its own query (the request's is not kept). */
  hasQuery: boolean;
}

/** Characters a Location header carries as written; everything else is percent-encoded. */
function safeText(s: string): string {
  return s.replace(/[^\x21-\x5b\x5d-\x7e]/gu, (c) => encodeComponent(c));
}

/** encodeURIComponent that cannot throw: a lone surrogate becomes U+FFFD first. */
export function encodeComponent(s: string): string {
  return encodeURIComponent(s.replace(new RegExp(LONE_SURROGATE.source, "g"), "\uFFFD"));
}

/** Parses a target against the placeholders its path captures; a string is the reason it is refused. */
export function parseTarget(to: string, names: ReadonlySet<string>): Target | string {
  if (to.includes("\\")) return "a target has no backslash";
  let origin = "";
  let rest: string;
  if (/^https?:\/\//i.test(to)) {
    const after = to.indexOf("//") + 2;
    const end = to.slice(after).search(/[/?#]/);
    origin = end === -1 ? to : to.slice(0, after + end);
    rest = end === -1 ? "" : to.slice(after + end);
    const authority = origin.slice(after);
    if (/:[A-Za-z_]/.test(authority)) return "a placeholder cannot change the target's host";
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return "the target is not a valid URL";
    }
    if (url.username || url.password) return "a target URL has no user name or password";
    if (!url.hostname) return "the target URL has no host";
    origin = url.origin;
  } else if (to.startsWith("/") && !to.startsWith("//")) {
    rest = to;
  } else {
    return "a target is a path of this drop (/…) or an http(s) URL";
  }
  const parts: Target["parts"] = [];
  const cut = rest.search(/[?#]/);
  const path = cut === -1 ? rest : rest.slice(0, cut);
  let last = 0;
  for (const m of path.matchAll(/\/:([A-Za-z_][A-Za-z0-9_]*)/g)) {
    const name = m[1]!;
    if (!names.has(name))
      return name === "splat" ? ":splat needs a * in the path" : `:${name} is not captured by the path`;
    parts.push({ text: safeText(path.slice(last, m.index + 1)) });
    parts.push({ name });
    last = m.index + m[0].length;
  }
  const tail = path.slice(last) + (cut === -1 ? "" : rest.slice(cut));
  if (tail) parts.push({ text: safeText(tail) });
  const q = rest.indexOf("?");
  const hash = rest.indexOf("#");
  return { origin, parts, hasQuery: q !== -1 && (hash === -1 || q < hash) };
}

function parseStatus(token: string): { status: RedirectStatus; force: boolean } | null {
  const m = /^(\d{3})?(!)?$/.exec(token);
  if (!m || token === "") return null;
  const status = m[1] === undefined ? 301 : Number(m[1]);
  if (!(REDIRECT_STATUSES as readonly number[]).includes(status)) return null;
  return { status: status as RedirectStatus, force: m[2] === "!" };
}

/** Sources the service keeps for itself (Netlify's own prefix, and ours): no rule may match under them. */
const RESERVED_SOURCES = [[".netlify"], [".well-known", "dropsite"]] as const;

function reservedSource(pattern: Pattern): boolean {
  return RESERVED_SOURCES.some((prefix) =>
    prefix.every((lit, i) => {
      const seg = pattern.segments[i];
      return seg !== undefined && "lit" in seg && seg.lit === lit;
    }),
  );
}

/** Netlify's query matching (`/store id=:id /blog/:id`) and conditions (`Country=us`): `key=value` fields. */
const KEY_VALUE = /^[^/:?#=]+=/;

/** Why a `_redirects` line is refused, or its rule. */
function redirectLine(text: string): Omit<RedirectRule, "line"> | string {
  const all = text.trim().split(/[ \t]+/);
  const hashAt = all.findIndex((f) => f.startsWith("#"));
  const fields = hashAt === -1 ? all : all.slice(0, hashAt);
  const [from = "", ...rest] = fields;
  if (rest.length > 0 && KEY_VALUE.test(rest[0]!)) return "query matching is not supported";
  if (rest.length === 0) return "a rule is: from to [status][!]";
  if (/^[a-z][a-z0-9+.-]*:/i.test(from))
    return "a rule matches paths of this drop; a host is not supported in the path";
  const pattern = parsePattern(from);
  if ("error" in pattern) return pattern.error;
  if (reservedSource(pattern)) return "paths under /.netlify/ and /.well-known/dropsite/ are reserved";
  // The forward shorthand: `/admin/* 200` (or `200!`) serves the same path, `*` as :splat.
  const forward = parseStatus(rest[0]!);
  if (forward && rest.length === 1) {
    if (forward.status !== 200 || !pattern.splat)
      return "a rule without a target is the forward shorthand: a path ending in /* with status 200 or 200!";
    return { from, to: `${from.slice(0, -1)}:splat`, status: 200, force: forward.force };
  }
  const [to = "", statusField, ...extra] = rest;
  if (extra.length > 0 || (statusField !== undefined && KEY_VALUE.test(statusField)))
    return "a rule is: from to [status][!]; conditions (Country, Language, Role, Cookie) are not supported";
  const st = statusField === undefined ? { status: 301 as const, force: false } : parseStatus(statusField);
  if (!st) return `the status is one of ${REDIRECT_STATUSES.join(", ")}, optionally followed by !`;
  const target = parseTarget(to, captures(pattern));
  if (typeof target === "string") return target;
  if (target.origin && (st.status === 200 || st.status === 404))
    return `a ${st.status} rewrite serves a path of this drop, never another host`;
  return { from, to, status: st.status, force: st.force };
}

/** Parses `_redirects`: `from to [status][!]` (or the forward shorthand `from 200`) per line; `#` starts a comment. */
export function parseRedirects(input: Uint8Array | string, limits: RuleLimits): Parsed<RedirectRule> {
  const refusals = new Refusals(RULE_FILES.redirects);
  const lines = splitLines(input, limits, refusals);
  const rules: RedirectRule[] = [];
  let counted = 0;
  for (const { n, text, refused } of lines) {
    if (refused || isComment(text)) continue;
    const rule = redirectLine(text);
    if (typeof rule === "string") {
      refusals.add(n, text, rule);
      continue;
    }
    // The count limit is named once, at the first rule past it.
    if (++counted === limits.redirectRules + 1)
      refusals.add(n, text, `over the limit of ${limits.redirectRules} redirect rules`);
    if (counted <= limits.redirectRules) rules.push({ line: n, ...rule });
  }
  return refusals.result(rules);
}

// --- _headers --------------------------------------------------------------------------------

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Headers a rule cannot set: they would break HTTP, caching by the service, or its guarantees. */
const REFUSED_HEADERS: Record<string, string> = {
  "content-length": "the service sets the length",
  "transfer-encoding": "the service frames the body",
  "content-encoding": "the service compresses",
  "content-range": "the service answers ranges",
  connection: "a hop-by-hop header",
  "keep-alive": "a hop-by-hop header",
  upgrade: "a hop-by-hop header",
  te: "a hop-by-hop header",
  trailer: "a hop-by-hop header",
  "proxy-connection": "a hop-by-hop header",
  "proxy-authenticate": "a hop-by-hop header",
  "set-cookie": "a drop cannot set cookies",
  "set-cookie2": "a drop cannot set cookies",
  etag: "the service sets ETags from the content",
  location: "redirects are rules of _redirects",
  "vercel-cdn-cache-control": "the service bounds CDN caching by the drop's expiry",
  "cdn-cache-control": "the service bounds CDN caching by the drop's expiry",
  "surrogate-control": "the service bounds CDN caching by the drop's expiry",
  "cache-tag": "the service tags cached responses",
  "vercel-cache-tag": "the service tags cached responses",
};

/** Why a header line is refused, or null when it may be set. */
export function refusedHeader(name: string, value: string): string | null {
  const lower = name.toLowerCase();
  const refused = REFUSED_HEADERS[lower];
  if (refused) return `${name} cannot be set: ${refused}`;
  if (lower.startsWith("x-dropsite-")) return `${name} cannot be set: the service's own header`;
  if (lower === "x-content-type-options" && value.toLowerCase() !== "nosniff")
    return "X-Content-Type-Options stays nosniff";
  return null;
}

/** What one header line adds to a response: `Name: value` and CRLF. */
function headerLineBytes(name: string, value: string): number {
  return name.length + value.length + 4;
}

interface Block extends HeaderRule {
  text: string;
  pattern: Pattern;
  /** Bytes of its header lines. */
  bytes: number;
  /** Refused (its path, or past the rule limit): its lines are still read, it is never kept. */
  refused: boolean;
  /** Indented lines below it, refused ones included. */
  written: number;
}

/**
 * Parses `_headers`: a path pattern on a line of its own, then its indented `Name: value`
 * lines. One rule is one path with its header lines; a block holds at most
 * `headerLinesPerRule` lines, and the blocks that can match one path add at most
 * `addedHeaderBytes` to a response.
 */
export function parseHeaders(input: Uint8Array | string, limits: RuleLimits): Parsed<HeaderRule> {
  const refusals = new Refusals(RULE_FILES.headers);
  const lines = splitLines(input, limits, refusals);
  const blocks: Block[] = [];
  let current: Block | undefined;
  let counted = 0;
  const close = () => {
    if (current && !current.refused && current.written === 0)
      refusals.add(current.line, current.text, "a path needs at least one indented Name: value line below it");
  };
  for (const { n, text, refused } of lines) {
    if (!refused && isComment(text)) continue;
    if (refused) {
      // Only its own refusal is reported: a refused header line still counts as the path's
      // line (no second "needs a line" refusal), and a refused path line takes the lines below it.
      if (/^[ \t]/.test(text)) {
        if (current) current.written++;
      } else {
        close();
        current = refusedBlock(n, "", text);
      }
      continue;
    }
    if (!/^[ \t]/.test(text)) {
      close();
      const path = text.trim();
      const pattern = /^[a-z][a-z0-9+.-]*:/i.test(path)
        ? { error: "a rule matches paths of this drop; a host is not supported" }
        : /[ \t]/.test(path)
          ? { error: "a path line holds one path; header lines below it are indented" }
          : parsePattern(path);
      current = refusedBlock(n, path, text);
      if ("error" in pattern) refusals.add(n, text, pattern.error);
      else if (++counted === limits.headerRules + 1)
        refusals.add(n, text, `over the limit of ${limits.headerRules} header rules`);
      else if (counted <= limits.headerRules) {
        current.pattern = pattern;
        current.refused = false;
        blocks.push(current);
      }
      continue;
    }
    if (!current) {
      refusals.add(n, text, "a header line needs a path line above it");
      continue;
    }
    current.written++;
    const why = headerLineRefusal(text);
    if (typeof why === "string") {
      refusals.add(n, text, why);
      continue;
    }
    const [name, value] = why;
    if (current.headers.length === limits.headerLinesPerRule) {
      refusals.add(n, text, `over the limit of ${limits.headerLinesPerRule} header lines in one path block`);
      current.headers.push([name, value]);
      continue;
    }
    if (current.headers.length > limits.headerLinesPerRule) continue;
    current.headers.push([name, value]);
    const before = current.bytes;
    current.bytes += headerLineBytes(name, value);
    if (before <= limits.addedHeaderBytes && current.bytes > limits.addedHeaderBytes && !current.refused)
      refusals.add(n, text, `over the limit of ${limits.addedHeaderBytes} bytes of headers on one response`);
  }
  close();
  overlappingBytes(blocks, limits, refusals);
  return refusals.result(blocks.map(({ line, path, headers }) => ({ line, path, headers })));
}

/** A path block, refused until its path line is found good: its header lines are read, and kept out. */
function refusedBlock(line: number, path: string, text: string): Block {
  return {
    line,
    path,
    headers: [],
    text,
    pattern: { segments: [], splat: false },
    bytes: 0,
    refused: true,
    written: 0,
  };
}

/** A header line's name and value, or why it is refused. */
function headerLineRefusal(text: string): [string, string] | string {
  const t = text.trim();
  const colon = t.indexOf(":");
  if (colon <= 0) return "a header line is Name: value";
  const name = t.slice(0, colon).trim();
  const value = t.slice(colon + 1).trim();
  if (!TOKEN.test(name)) return "a header name is letters, digits and -";
  if (value === "") return "the header has no value";
  if (!/^[\x20-\x7e\t]*$/.test(value)) return "a header value is printable ASCII (percent-encode URLs)";
  return refusedHeader(name, value) ?? [name, value];
}

/**
 * Headers of every rule matching a path are combined on its response: each block's bytes plus
 * those of every block that can match a path it matches (an upper bound of any response it is
 * on) stay within the limit; the first block past it is named. A block alone past it was named
 * at its line already.
 */
function overlappingBytes(blocks: readonly Block[], limits: RuleLimits, refusals: Refusals): void {
  const within = blocks.filter((b) => b.bytes <= limits.addedHeaderBytes);
  for (const [i, b] of within.entries()) {
    let total = b.bytes;
    for (const [j, other] of within.entries())
      if (j !== i && mayOverlap(b.pattern, other.pattern)) total += other.bytes;
    if (total > limits.addedHeaderBytes) {
      refusals.add(
        b.line,
        b.text,
        `over the limit of ${limits.addedHeaderBytes} bytes of headers on one response, with the other rules matching its paths`,
      );
      return;
    }
  }
}

/** Whether some path matches both patterns. */
function mayOverlap(a: Pattern, b: Pattern): boolean {
  const n = Math.min(a.segments.length, b.segments.length);
  for (let i = 0; i < n; i++) {
    const x = a.segments[i]!;
    const y = b.segments[i]!;
    if ("lit" in x && "lit" in y && x.lit !== y.lit) return false;
  }
  if (a.segments.length === b.segments.length) return true;
  // The shorter pattern needs a splat to reach the longer one's segments.
  return a.segments.length < b.segments.length ? a.splat : b.splat;
}
