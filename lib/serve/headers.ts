import type { AppContext } from "../context";
import type { ManifestFile } from "../db/serving";
import type { Encoding, Manifest } from "./cache";
import { parseRange } from "./range";

// The headers of a drop's answers: caching for browsers and CDNs, the encodings a client takes,
// conditional requests and ranges, and what a drop's _headers rules set.

export const REVALIDATE = "public, max-age=0, must-revalidate";

export const IMMUTABLE = "public, max-age=31536000, immutable";

/** What the CDN keeps at most; every change purges the drop's tag sooner. */
const CDN_MAX_SECONDS = 86_400;

const CDN_STALE_SECONDS = 60;

/** HTML, CSS, JS, JSON (and source maps), SVG, XML, plain text and the like. */
const TEXT_TYPES =
  /^(text\/|image\/svg\+xml|application\/(json|javascript|xml|manifest\+json|ld\+json|xhtml\+xml|rss\+xml|atom\+xml)\b)/;

export function compressibleType(contentType: string): boolean {
  return TEXT_TYPES.test(contentType);
}

/** br, then gzip, when the client accepts it (q > 0). */
export function acceptedEncoding(header: string | null): Encoding | null {
  if (!header) return null;
  let br = false;
  let gz = false;
  for (const part of header.split(",")) {
    const [token = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) continue;
    if (token === "br") br = true;
    else if (token === "gzip" || token === "*") gz = true;
  }
  return br ? "br" : gz ? "gzip" : null;
}

export function etagMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

/**
 * The CDN headers of a public drop's response: Vercel's always (other hosts ignore it), and with
 * CDN_CACHE the standard CDN-Cache-Control and the answer's Cache-Tag (the drop's tag; on a
 * preview host its version's and alias's too) for any CDN in front. None
 * once the drop is about to expire: no CDN keeps a response past `expires_at`.
 */
export function cdnHeaders(
  ctx: AppContext,
  m: Manifest,
  immutable: boolean,
  now: number,
  html = false,
): Record<string, string> {
  const bounded = cdnCacheControl(m, immutable, now);
  // Counted views (lib/stats) need every HTML view at the origin: a 304 when unchanged.
  const value = bounded && html && ctx.env.STATS ? "max-age=0, must-revalidate" : bounded;
  if (!value) return {};
  if (!ctx.env.CDN_CACHE) return { "Vercel-CDN-Cache-Control": value };
  return { "Vercel-CDN-Cache-Control": value, "CDN-Cache-Control": value, "Cache-Tag": m.tagHeader };
}

/** The CDN headers a response may carry; a rule that makes it private or no-store removes them. */
const CDN_HEADERS = ["Vercel-CDN-Cache-Control", "CDN-Cache-Control", "Cache-Tag"];

function cdnCacheControl(m: Manifest, immutable: boolean, now: number): string | undefined {
  const left = m.drop.expiresAt ? Math.floor((m.drop.expiresAt.getTime() - now) / 1000) : Infinity;
  const fresh = Math.min(immutable ? 31_536_000 : CDN_MAX_SECONDS, left);
  if (fresh < 1) return undefined;
  const stale = Math.min(CDN_STALE_SECONDS, left - fresh);
  return stale >= 1 ? `max-age=${fresh}, stale-while-revalidate=${stale}` : `max-age=${fresh}`;
}

/**
 * Sets the headers of the matching `_headers` rules on a response: a rule's header replaces the
 * service's of the same name (Cache-Control included), except Vary and X-Robots-Tag, which are
 * combined so compression and noindex hold. A rule that makes a response private or no-store
 * also keeps it out of the CDN. The refused names never get here (./rules/parse).
 */
export function applyRuleHeaders(headers: Record<string, string>, rule: Map<string, [string, string]>): void {
  const keys = new Map(Object.keys(headers).map((k) => [k.toLowerCase(), k]));
  for (const [lower, [name, value]] of rule) {
    const existing = keys.get(lower);
    if (existing && (lower === "vary" || lower === "x-robots-tag")) {
      headers[existing] = `${headers[existing]}, ${value}`;
      continue;
    }
    if (existing) delete headers[existing];
    headers[name] = value;
    if (lower === "cache-control" && /\b(no-store|private)\b/i.test(value))
      for (const h of CDN_HEADERS) delete headers[h];
  }
}

export function robotsHeader(m: Manifest): Record<string, string> {
  const value = robotsValue(m);
  return value ? { "X-Robots-Tag": value } : {};
}

/** noindex for an anonymous drop's answers and every preview host's (a version or alias, never the site itself). */
function robotsValue(m: Manifest): string | undefined {
  return m.drop.ownerId === null || m.drop.previewVersion !== undefined ? "noindex" : undefined;
}

/** The headers of a file's answer, before its length and range. */
export function fileHeaders(
  ctx: AppContext,
  m: Manifest,
  file: ManifestFile,
  etag: string,
  enc: Encoding | null,
  o: { immutable: boolean; compressible: boolean; shared: boolean; now: number },
): Record<string, string> {
  const headers: Record<string, string> = {
    "Content-Type": file.contentType,
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": o.immutable ? IMMUTABLE : REVALIDATE,
    ETag: etag,
    "Accept-Ranges": "bytes",
  };
  // Assigned, not spread from objects made for it: this runs for every file answer.
  const robots = robotsValue(m);
  if (robots) headers["X-Robots-Tag"] = robots;
  if (o.shared)
    Object.assign(headers, cdnHeaders(ctx, m, o.immutable, o.now, file.contentType.startsWith("text/html")));
  if (o.compressible) headers.Vary = "Accept-Encoding";
  if (enc) headers["Content-Encoding"] = enc;
  return headers;
}

/** The range a Range header asks for ("ignore": the whole file), honoured only when If-Range, if sent, names this form. */
export function requestedRange(
  rangeHeader: string,
  ifRange: string | null,
  size: number,
  etag: string,
): ReturnType<typeof parseRange> {
  return ifRange === null || ifRange.trim() === etag ? parseRange(rangeHeader, size) : "ignore";
}

/** Marks an answer as the part of a file a range names; its status, 206. */
export function partial(headers: Record<string, string>, range: { start: number; end: number }, size: number): number {
  headers["Content-Range"] = `bytes ${range.start}-${range.end}/${size}`;
  headers["Cache-Control"] += ", no-transform";
  return 206;
}
