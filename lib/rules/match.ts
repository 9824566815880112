import { encodeComponent, parseTarget, type Target } from "./parse";
import { captures, matchPattern, parsePattern, type Pattern } from "./pattern";
import type { RedirectStatus, SiteRules } from "./types";

// Site rules compiled once per cached manifest (lib/serve/cache.ts) and matched per request.
// Rules are indexed by their first literal segment, so a request looks only at the rules that
// can match its first segment (plus those starting with a placeholder or *), in file order.

interface Indexed<T> {
  items: T[];
  /** Rule indexes by first literal segment ("" for the pattern "/"), ascending. */
  byFirst: Map<string, number[]>;
  /** Rules whose first segment is a placeholder or *, ascending. */
  any: number[];
}

export interface CompiledRedirect {
  pattern: Pattern;
  target: Target;
  status: RedirectStatus;
  force: boolean;
}

export interface CompiledHeaderRule {
  pattern: Pattern;
  /** Lower-case name, name as written, value. */
  headers: [string, string, string][];
}

export interface CompiledRules {
  redirects?: Indexed<CompiledRedirect>;
  headers?: Indexed<CompiledHeaderRule>;
}

function index<T extends { pattern: Pattern }>(items: T[]): Indexed<T> {
  const byFirst = new Map<string, number[]>();
  const any: number[] = [];
  items.forEach((r, i) => {
    const first = r.pattern.segments[0];
    const key = first === undefined ? (r.pattern.splat ? null : "") : "lit" in first ? first.lit : null;
    if (key === null) any.push(i);
    else {
      const list = byFirst.get(key);
      if (list) list.push(i);
      else byFirst.set(key, [i]);
    }
  });
  return { items, byFirst, any };
}

/** Compiles stored rules; undefined when the drop has none (the serve path then skips rules). */
export function compileRules(rules: SiteRules | null | undefined): CompiledRules | undefined {
  if (!rules) return undefined;
  const out: CompiledRules = {};
  const redirects: CompiledRedirect[] = [];
  for (const r of rules.redirects ?? []) {
    const pattern = parsePattern(r.from);
    if ("error" in pattern) continue;
    const target = parseTarget(r.to, captures(pattern));
    if (typeof target === "string") continue;
    redirects.push({ pattern, target, status: r.status, force: r.force });
  }
  const headers: CompiledHeaderRule[] = [];
  for (const h of rules.headers ?? []) {
    const pattern = parsePattern(h.path);
    if ("error" in pattern) continue;
    headers.push({ pattern, headers: h.headers.map(([name, value]) => [name.toLowerCase(), name, value]) });
  }
  if (redirects.length) out.redirects = index(redirects);
  if (headers.length) out.headers = index(headers);
  return out.redirects || out.headers ? out : undefined;
}

/** Calls `visit` for each rule matching `segs`, in file order, until it returns true. */
function eachMatch<T extends { pattern: Pattern }>(ix: Indexed<T>, segs: readonly string[], visit: (rule: T, values: Record<string, string>) => boolean): void {
  const a = ix.byFirst.get(segs[0] ?? "") ?? [];
  const b = ix.any;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const k = j >= b.length || (i < a.length && a[i]! < b[j]!) ? a[i++]! : b[j++]!;
    const rule = ix.items[k]!;
    const values = matchPattern(rule.pattern, segs);
    if (values && visit(rule, values)) return;
  }
}

/**
 * The first redirect rule that applies to a path: a forced rule whenever it matches, another
 * only when `fileAnswers()` is false (asked at most once).
 */
export function firstRedirect(rules: CompiledRules, segs: readonly string[], fileAnswers: () => boolean): { rule: CompiledRedirect; values: Record<string, string> } | undefined {
  if (!rules.redirects) return undefined;
  let answered: boolean | undefined;
  let found: { rule: CompiledRedirect; values: Record<string, string> } | undefined;
  eachMatch(rules.redirects, segs, (rule, values) => {
    if (!rule.force) {
      answered ??= fileAnswers();
      if (answered) return false;
    }
    found = { rule, values };
    return true;
  });
  return found;
}

function encodeValue(v: string): string {
  return v.split("/").map(encodeComponent).join("/");
}

/**
 * The target with placeholders filled in (each value percent-encoded, so no CR, LF or second
 * header can appear). A path target stays on this host: a result that would start with `//`
 * has its second slash encoded.
 */
export function expandTarget(t: Target, values: Record<string, string>): string {
  let s = "";
  for (const p of t.parts) s += "text" in p ? p.text : encodeValue(values[p.name] ?? "");
  if (t.origin) return t.origin + s;
  return s.startsWith("//") ? `/%2F${s.slice(2)}` : s;
}

/**
 * The headers of every `_headers` rule matching the path, combined in file order: a name set
 * by several rules (or lines) gets their values joined with ", ". Keyed by lower-case name.
 */
export function headersFor(rules: CompiledRules, segs: readonly string[]): Map<string, [string, string]> | undefined {
  if (!rules.headers) return undefined;
  let out: Map<string, [string, string]> | undefined;
  eachMatch(rules.headers, segs, (rule) => {
    out ??= new Map();
    for (const [lower, name, value] of rule.headers) {
      const had = out.get(lower);
      out.set(lower, had ? [had[0], `${had[1]}, ${value}`] : [name, value]);
    }
    return false;
  });
  return out;
}
