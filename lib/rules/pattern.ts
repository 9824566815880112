// Path patterns of `_redirects` and `_headers`: `/blog/:slug`, `/assets/*`, `/`. A pattern is
// a list of whole segments: a literal, a `:placeholder` (one segment), and at most one `*` as
// the last segment (the rest of the path, `:splat`; also nothing). A trailing slash does not
// matter, on either side. Literals compare with the decoded request path (NFC), as files do.

export type Segment = { lit: string } | { name: string };

export interface Pattern {
  segments: Segment[];
  splat: boolean;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The pattern, or why it is not one. */
export function parsePattern(raw: string): Pattern | { error: string } {
  if (!raw.startsWith("/")) return { error: "a path starts with /" };
  if (raw.includes("?") || raw.includes("#")) return { error: "query and fragment matching are not supported" };
  if (raw.includes("\\")) return { error: "a path has no backslash" };
  const body = raw.slice(1).replace(/\/$/, "");
  const parts = body === "" ? [] : body.split("/");
  const segments: Segment[] = [];
  const names = new Set<string>();
  let splat = false;
  for (const [i, part] of parts.entries()) {
    if (part === "") return { error: "a path has no empty segment (//)" };
    if (part === "*") {
      if (i !== parts.length - 1) return { error: "* stands only for the last segment (/folder/*)" };
      splat = true;
      continue;
    }
    if (part.includes("*")) return { error: "* stands only for a whole last segment (/folder/*)" };
    if (part.startsWith(":")) {
      const name = part.slice(1);
      if (!NAME.test(name)) return { error: `:${name} is not a placeholder name (letters, digits, _)` };
      if (name === "splat") return { error: ":splat is the name of *; use * in the path" };
      if (names.has(name)) return { error: `:${name} appears twice` };
      names.add(name);
      segments.push({ name });
      continue;
    }
    let lit: string;
    try {
      lit = decodeURIComponent(part).normalize("NFC");
    } catch {
      return { error: "a percent-escape does not decode" };
    }
    // eslint-disable-next-line no-control-regex
    if (lit === "." || lit === ".." || /[/\\\u0000-\u001f\u007f]/.test(lit))
      return { error: "a path segment cannot name a file" };
    segments.push({ lit });
  }
  return { segments, splat };
}

/** The placeholder names a pattern captures (`splat` for `*`). */
export function captures(p: Pattern): Set<string> {
  const out = new Set<string>();
  for (const s of p.segments) if ("name" in s) out.add(s.name);
  if (p.splat) out.add("splat");
  return out;
}

/**
 * Matches request segments (decoded, no empty ones) against a pattern: the captured values
 * (decoded), or null. The splat is the rest of the segments joined by "/".
 */
export function matchPattern(p: Pattern, segs: readonly string[]): Record<string, string> | null {
  const n = p.segments.length;
  if (p.splat ? segs.length < n : segs.length !== n) return null;
  let values: Record<string, string> | null = null;
  for (let i = 0; i < n; i++) {
    const s = p.segments[i]!;
    const v = segs[i]!;
    if ("lit" in s) {
      if (s.lit !== v) return null;
    } else (values ??= {})[s.name] = v;
  }
  if (p.splat) (values ??= {}).splat = segs.slice(n).join("/");
  return values ?? {};
}

/** The segments of a drop path (as lib/serve's dropPath gives it): "a/b/" → ["a", "b"]. */
export function pathSegments(path: string): string[] {
  const p = path.endsWith("/") ? path.slice(0, -1) : path;
  return p === "" ? [] : p.split("/");
}
