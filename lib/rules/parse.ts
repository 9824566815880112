import { LONE_SURROGATE } from "../input";
import { captures, parsePattern } from "./pattern";
import { REDIRECT_STATUSES, RULE_FILES, type HeaderRule, type RedirectRule, type RedirectStatus } from "./types";

// The parsers of `_redirects` and `_headers` (Netlify syntax, the subset stated in
// docs/contract.md, "Site rules", and chosen in docs/decisions.md). Pure: bytes in, rules or the
// first refusal out, never a throw. Nothing is dropped silently: a line that does not parse, a
// refused header, or a file past a limit is a refusal naming the line, which the deploy turns
// into 400 invalid_request.

export interface RuleLimits {
  redirectRules: number;
  headerRules: number;
  ruleLineChars: number;
}

export interface Refusal {
  file: string;
  line: number;
  /** The line as written (shortened, control characters escaped). */
  rule: string;
  reason: string;
}

export type Parsed<T> = { ok: true; rules: T[] } | { ok: false; refusal: Refusal };

/** `_redirects line 3: /a https://b.example 200 (why)`: the text of a refusal. */
export function refusalMessage(r: Refusal): string {
  return `${r.file} line ${r.line}: ${r.rule} (${r.reason})`;
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
}

/**
 * The lines of a rules file: UTF-8 (a BOM is skipped), LF or CRLF, each within the length
 * limit and free of control characters other than tab. The first bad line is a refusal.
 */
function splitLines(file: string, input: Uint8Array | string, limits: RuleLimits): Line[] | Refusal {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const out: Line[] = [];
  let text: string;
  if (typeof input === "string") text = input;
  else {
    try {
      text = decoder.decode(input);
    } catch {
      // Find the line that is not UTF-8, to name it.
      let n = 1;
      let start = 0;
      for (let i = 0; i <= input.length; i++) {
        if (i === input.length || input[i] === 0x0a) {
          try {
            decoder.decode(input.subarray(start, i));
          } catch {
            return {
              file,
              line: n,
              rule: shown(new TextDecoder().decode(input.subarray(start, Math.min(i, start + SHOWN_CHARS)))),
              reason: "not UTF-8 text",
            };
          }
          n++;
          start = i + 1;
        }
      }
      return { file, line: 1, rule: "", reason: "not UTF-8 text" };
    }
  }
  if (text.startsWith("\uFEFF")) text = text.slice(1);
  const raw = text.split("\n");
  for (const [i, l] of raw.entries()) {
    const line = l.endsWith("\r") ? l.slice(0, -1) : l;
    const n = i + 1;
    if (line.length > limits.ruleLineChars)
      return { file, line: n, rule: shown(line), reason: `longer than ${limits.ruleLineChars} characters` };
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(line))
      return { file, line: n, rule: shown(line), reason: "contains a control character" };
    if (LONE_SURROGATE.test(line)) return { file, line: n, rule: shown(line), reason: "not valid Unicode" };
    out.push({ n, text: line });
  }
  return out;
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

/** Parses `_redirects`: `from to [status][!]` per line; `#` starts a comment. */
export function parseRedirects(input: Uint8Array | string, limits: RuleLimits): Parsed<RedirectRule> {
  const file = RULE_FILES.redirects;
  const lines = splitLines(file, input, limits);
  if (!Array.isArray(lines)) return { ok: false, refusal: lines };
  const rules: RedirectRule[] = [];
  for (const { n, text } of lines) {
    if (isComment(text)) continue;
    const refuse = (reason: string): Parsed<RedirectRule> => ({
      ok: false,
      refusal: { file, line: n, rule: shown(text), reason },
    });
    const all = text.trim().split(/[ \t]+/);
    const hashAt = all.findIndex((f) => f.startsWith("#"));
    const fields = hashAt === -1 ? all : all.slice(0, hashAt);
    if (fields.length < 2) return refuse("a rule is: from to [status][!]");
    if (fields.length > 3)
      return refuse("a rule is: from to [status][!]; conditions and query matching are not supported");
    const [from = "", to = "", statusField] = fields;
    if (/^[a-z][a-z0-9+.-]*:/i.test(from))
      return refuse("a rule matches paths of this drop; a host is not supported in the path");
    const pattern = parsePattern(from);
    if ("error" in pattern) return refuse(pattern.error);
    const st = statusField === undefined ? { status: 301 as const, force: false } : parseStatus(statusField);
    if (!st) return refuse(`the status is one of ${REDIRECT_STATUSES.join(", ")}, optionally followed by !`);
    const target = parseTarget(to, captures(pattern));
    if (typeof target === "string") return refuse(target);
    if (target.origin && (st.status === 200 || st.status === 404))
      return refuse(`a ${st.status} rewrite serves a path of this drop, never another host`);
    if (rules.length === limits.redirectRules)
      return refuse(`over the limit of ${limits.redirectRules} redirect rules`);
    rules.push({ line: n, from, to, status: st.status, force: st.force });
  }
  return { ok: true, rules };
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

/**
 * Parses `_headers`: a path pattern on a line of its own, then its indented `Name: value`
 * lines. One rule is one path with its header lines.
 */
export function parseHeaders(input: Uint8Array | string, limits: RuleLimits): Parsed<HeaderRule> {
  const file = RULE_FILES.headers;
  const lines = splitLines(file, input, limits);
  if (!Array.isArray(lines)) return { ok: false, refusal: lines };
  const rules: HeaderRule[] = [];
  let current: (HeaderRule & { text: string }) | undefined;
  const refusal = (n: number, text: string, reason: string): Parsed<HeaderRule> => ({
    ok: false,
    refusal: { file, line: n, rule: shown(text), reason },
  });
  const close = (): Parsed<HeaderRule> | undefined => {
    if (current && current.headers.length === 0)
      return refusal(current.line, current.text, "a path needs at least one indented Name: value line below it");
    return undefined;
  };
  for (const { n, text } of lines) {
    if (isComment(text)) continue;
    if (!/^[ \t]/.test(text)) {
      const closed = close();
      if (closed) return closed;
      const path = text.trim();
      if (/^[a-z][a-z0-9+.-]*:/i.test(path))
        return refusal(n, text, "a rule matches paths of this drop; a host is not supported");
      if (/[ \t]/.test(path)) return refusal(n, text, "a path line holds one path; header lines below it are indented");
      const pattern = parsePattern(path);
      if ("error" in pattern) return refusal(n, text, pattern.error);
      if (rules.length === limits.headerRules)
        return refusal(n, text, `over the limit of ${limits.headerRules} header rules`);
      current = { line: n, path, headers: [], text };
      rules.push(current);
      continue;
    }
    if (!current) return refusal(n, text, "a header line needs a path line above it");
    const t = text.trim();
    const colon = t.indexOf(":");
    if (colon <= 0) return refusal(n, text, "a header line is Name: value");
    const name = t.slice(0, colon).trim();
    const value = t.slice(colon + 1).trim();
    if (!TOKEN.test(name)) return refusal(n, text, "a header name is letters, digits and -");
    if (value === "") return refusal(n, text, "the header has no value");
    if (!/^[\x20-\x7e\t]*$/.test(value))
      return refusal(n, text, "a header value is printable ASCII (percent-encode URLs)");
    const why = refusedHeader(name, value);
    if (why) return refusal(n, text, why);
    current.headers.push([name, value]);
  }
  const closed = close();
  if (closed) return closed;
  return { ok: true, rules: rules.map(({ line, path, headers }) => ({ line, path, headers })) };
}
