import type { ManifestFile } from "../db/serving";
import { expandTarget, firstRedirect, type CompiledRules } from "../rules/match";
import type { Manifest } from "./cache";

// Which file answers a path: the request path decoded into a drop path, the candidates a path
// may name (exact, clean URLs, a folder's index), and the choice among a drop's files with or
// without its _redirects rules. The deploy report reads resolvePath too.

/** Whether the path has a percent-escape that does not decode (e.g. %zz or overlong UTF-8). */
export function malformedPath(pathname: string): boolean {
  if (!pathname.includes("%")) return false;
  try {
    decodeURIComponent(pathname);
    return false;
  } catch {
    return true;
  }
}

const NON_ASCII = /[\u0080-\uffff]/;

/** Decodes the request path into a drop-relative path, or null when it cannot name a file. */
export function dropPath(pathname: string): string | null {
  const segments: string[] = [];
  for (const raw of pathname.split("/")) {
    let seg: string;
    try {
      seg = raw.includes("%") ? decodeURIComponent(raw) : raw;
    } catch {
      return null;
    }
    // NFC leaves ASCII as it is; only a segment with other characters goes through it.
    if (NON_ASCII.test(seg)) seg = seg.normalize("NFC");
    if (seg.includes("/") || seg.includes("\\") || seg.includes("\0")) return null;
    if (seg === "" || seg === ".") continue;
    if (seg === "..") return null;
    segments.push(seg);
  }
  const joined = segments.join("/");
  return pathname.endsWith("/") && joined ? `${joined}/` : joined;
}

/** Files that may answer a path, best first: exact, then clean URLs. */
export function candidatePaths(path: string): string[] {
  if (path === "" || path.endsWith("/")) return [`${path}index.html`];
  return [path, `${path}.html`];
}

/** Names that carry a content hash: app.3f9a1c2b.js, index-BXn3k9Qa.css, chunk.8f2e4d.woff2. */
export function isHashedName(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const m = /[.-]([A-Za-z0-9_]{6,})\.[A-Za-z0-9]+$/.exec(name);
  if (!m) return false;
  const h = m[1] as string;
  if (/^[0-9a-f]{6,}$/.test(h)) return /[0-9]/.test(h) && /[a-f]/.test(h) ? true : h.length >= 8 && /[0-9]/.test(h);
  return h.length >= 8 && /[0-9]/.test(h) && /[A-Za-z]/.test(h);
}

/** The last segment has no extension: a route of a single-page app, not a missing asset. */
function extensionless(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return !name.includes(".");
}

/**
 * Which file of a drop answers a path, from its paths alone: exact, clean URLs, a folder's
 * redirect, a root 200.html for routes, the drop's 404.html. The deploy report reads it too.
 */
export function resolvePath(
  has: (path: string) => boolean,
  path: string,
): { path: string; status: number } | { redirect: string } | undefined {
  const own = fileFor(has, path);
  if (own) return own;
  if (has("200.html") && extensionless(path.replace(/\/$/, ""))) return { path: "200.html", status: 200 };
  return has("404.html") ? { path: "404.html", status: 404 } : undefined;
}

/** The file that answers a path itself (exact, clean URL), or its folder's redirect: what shadows a rule. */
function fileFor(
  has: (path: string) => boolean,
  path: string,
): { path: string; status: number } | { redirect: string } | undefined {
  for (const c of candidatePaths(path)) if (has(c)) return { path: c, status: 200 };
  if (path !== "" && !path.endsWith("/") && has(`${path}/index.html`)) return { redirect: `/${path}/` };
  return undefined;
}

export type Chosen =
  { file: ManifestFile; status: number } | { redirect: string } | { location: string; status: number };

export function pick(m: Manifest, path: string): Chosen | undefined {
  const chosen = resolvePath((p) => m.files.has(p), path);
  return chosen && "path" in chosen ? { file: m.files.get(chosen.path)!, status: chosen.status } : chosen;
}

/**
 * With site rules: the first matching rule in file order, where a rule without `!` counts only
 * when no file answers the path (exact, clean URL, folder redirect); else that file, 200.html,
 * 404.html as without rules.
 * A 200 or 404 rewrite serves the target's file (exact, clean URL, folder index) or, when
 * there is none, the drop's 404. Rules are not applied again to a rewritten path.
 */
export function pickWithRules(
  m: Manifest,
  rules: CompiledRules,
  path: string,
  segs: string[],
  search: string,
): Chosen | undefined {
  const has = (p: string) => m.files.has(p);
  const hit = firstRedirect(rules, segs, () => fileFor(has, path) !== undefined);
  if (!hit) return pick(m, path);
  const { rule, values } = hit;
  const target = expandTarget(rule.target, values);
  if (rule.status !== 200 && rule.status !== 404) {
    if (rule.target.hasQuery || !search) return { location: target, status: rule.status };
    const hash = target.indexOf("#");
    return {
      location: hash === -1 ? target + search : target.slice(0, hash) + search + target.slice(hash),
      status: rule.status,
    };
  }
  const cut = target.search(/[?#]/);
  const to = dropPath(cut === -1 ? target : target.slice(0, cut));
  if (to !== null) {
    const names = to === "" || to.endsWith("/") ? candidatePaths(to) : [...candidatePaths(to), `${to}/index.html`];
    const found = names.find(has);
    if (found) return { file: m.files.get(found)!, status: rule.status };
  }
  const notFound = m.files.get("404.html");
  return notFound ? { file: notFound, status: 404 } : undefined;
}

/** Encodes a drop path for a Location header: each segment percent-encoded, slashes kept. */
export function encodePath(p: string): string {
  return p.split("/").map(encodeURIComponent).join("/");
}
