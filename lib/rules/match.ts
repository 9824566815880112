import { LRUCache } from "lru-cache";
import { encodeComponent, parseTarget, type Target } from "./parse";
import { captures, matchPattern, parsePattern, type Pattern } from "./pattern";
import type { RedirectStatus, SiteRules } from "./types";

// Site rules compiled once per cached manifest (lib/serve/cache.ts) and matched per request.
// Each rule is indexed by its last literal segment and that segment's position (`/old/p7` under
// position 1, "p7"; `/blog/:year/:slug` under position 0, "blog"), so a request looks only at
// the rules whose literal it has, plus those without any literal (`/*`, `/:a/:b`), in file order.

interface Indexed<T> {
  items: T[];
  /** Per position: rule indexes by the literal there, ascending. */
  byPosition: Map<string, number[]>[];
  /** Rules without a literal segment, ascending. */
  wild: number[];
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
  /** The combined headers of recent paths (they depend on the path alone); NO_HEADERS for none. */
  headerCache?: LRUCache<string, Map<string, [string, string]>>;
}

/** Paths whose combined headers are remembered per drop, the least recently used leaving first. */
const HEADER_CACHE_PATHS = 1024;
/** Remembered for a path no rule sets a header on (lru-cache keeps no null). */
const NO_HEADERS: Map<string, [string, string]> = new Map();

/**
 * Counted by maxSize at one per path, not by `max`: lru-cache allocates a cache's lists for
 * `max` entries up front (24 KiB for 1024, measured with --expose-gc over 1,000 caches), once
 * per cached manifest with _headers; sized this way they grow with the paths actually seen.
 */
function newHeaderCache(): LRUCache<string, Map<string, [string, string]>> {
  return new LRUCache({ maxSize: HEADER_CACHE_PATHS, sizeCalculation: () => 1 });
}

function index<T extends { pattern: Pattern }>(items: T[]): Indexed<T> {
  const byPosition: Map<string, number[]>[] = [];
  const wild: number[] = [];
  items.forEach((r, i) => {
    const segs = r.pattern.segments;
    let p = segs.length - 1;
    while (p >= 0 && !("lit" in segs[p]!)) p--;
    if (p < 0) {
      wild.push(i);
      return;
    }
    const lit = (segs[p] as { lit: string }).lit;
    const at = (byPosition[p] ??= new Map());
    const list = at.get(lit);
    if (list) list.push(i);
    else at.set(lit, [i]);
  });
  return { items, byPosition, wild };
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
function eachMatch<T extends { pattern: Pattern }>(
  ix: Indexed<T>,
  segs: readonly string[],
  visit: (rule: T, values: Record<string, string>) => boolean,
): void {
  // The candidate lists: rules without a literal, and those whose literal the path has where
  // they have it. Usually one or two short lists; merged by index to keep file order.
  const lists: number[][] = ix.wild.length ? [ix.wild] : [];
  const n = Math.min(segs.length, ix.byPosition.length);
  for (let p = 0; p < n; p++) {
    const list = ix.byPosition[p]?.get(segs[p]!);
    if (list) lists.push(list);
  }
  if (lists.length === 1) {
    for (const k of lists[0]!) {
      const rule = ix.items[k]!;
      const values = matchPattern(rule.pattern, segs);
      if (values && visit(rule, values)) return;
    }
    return;
  }
  // The pattern "/" has no segment and so no literal: it is in wild.
  const heads = lists.map(() => 0);
  for (;;) {
    let best = -1;
    for (let l = 0; l < lists.length; l++) {
      const k = lists[l]![heads[l]!];
      if (k !== undefined && (best === -1 || k < lists[best]![heads[best]!]!)) best = l;
    }
    if (best === -1) return;
    const rule = ix.items[lists[best]![heads[best]!++]!]!;
    const values = matchPattern(rule.pattern, segs);
    if (values && visit(rule, values)) return;
  }
}

/**
 * The first redirect rule that applies to a path: a forced rule whenever it matches, another
 * only when `fileAnswers()` is false (asked at most once).
 */
export function firstRedirect(
  rules: CompiledRules,
  segs: readonly string[],
  fileAnswers: () => boolean,
): { rule: CompiledRedirect; values: Record<string, string> } | undefined {
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
  const cache = (rules.headerCache ??= newHeaderCache());
  const key = segs.join("/");
  const known = cache.get(key);
  if (known !== undefined) return known === NO_HEADERS ? undefined : known;
  const out = combineHeaders(rules.headers, segs);
  cache.set(key, out ?? NO_HEADERS);
  return out;
}

function combineHeaders(
  headers: Indexed<CompiledHeaderRule>,
  segs: readonly string[],
): Map<string, [string, string]> | undefined {
  let out: Map<string, [string, string]> | undefined;
  eachMatch(headers, segs, (rule) => {
    out ??= new Map();
    for (const [lower, name, value] of rule.headers) {
      const had = out.get(lower);
      out.set(lower, had ? [had[0], `${had[1]}, ${value}`] : [name, value]);
    }
    return false;
  });
  return out;
}
