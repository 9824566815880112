import type { AppContext } from "../context";
import { findServable, type ServableDrop } from "../db/queries";
import { upstreamUnavailable, errorResponse, methodNotAllowed } from "../errors";
import type { HostAction } from "./host";
import { parseRange } from "./range";

// Serving a drop: a plain function from (host action, path, request) to a Response, with no
// dependency on Next, so it can run behind any listener.

export interface ServeRequest {
  method: string;
  pathname: string;
  headers: Headers;
}

/** Looks up the drop of a vanity host (sub--name); provided by the vanity feature. */
export type VanityLookup = (ctx: AppContext, sub: string, name: string, paths: string[]) => Promise<ServableDrop | undefined>;

const HTML_CACHE = "public, max-age=0, must-revalidate";
/** Carries Content-Length past Next to server.mjs (see there). */
export const LENGTH_HEADER = "x-dropsite-content-length";
const ASSET_CACHE = "public, max-age=60";

function page(status: number, title: string, text: string, extra: Record<string, string> = {}): Response {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title><style>body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;color:#222;background:#fafafa}main{max-width:32rem;padding:2rem;text-align:center}h1{font-size:1.5rem}</style></head><body><main><h1>${title}</h1><p>${text}</p></main></body></html>`;
  return new Response(body, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": HTML_CACHE,
      "X-Content-Type-Options": "nosniff",
      "X-Robots-Tag": "noindex",
      ...extra,
    },
  });
}

export const notFoundPage = () => page(404, "Not found", "There is nothing at this address.");
const gonePage = () => page(410, "This drop has expired", "The content that was published here is no longer online.");

/** Decodes the request path into a drop-relative path, or null when it cannot name a file. */
export function dropPath(pathname: string): string | null {
  const segments: string[] = [];
  for (const raw of pathname.split("/")) {
    let seg: string;
    try {
      seg = decodeURIComponent(raw).normalize("NFC");
    } catch {
      return null;
    }
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
  return [path, `${path}.html`, `${path}/index.html`];
}

function etagMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

export async function serveDrop(ctx: AppContext, action: HostAction, req: ServeRequest, vanity?: VanityLookup): Promise<Response> {
  if (action.kind === "app") return notFoundPage();
  if (req.method !== "GET" && req.method !== "HEAD") return errorResponse(methodNotAllowed(["GET", "HEAD"]));
  const path = dropPath(req.pathname);
  if (path === null || action.kind === "invalid-drop-host") return notFoundPage();
  const candidates = candidatePaths(path);
  const lookup = [...candidates, "404.html"];
  let found: ServableDrop | undefined;
  try {
    if (action.kind === "drop") found = await findServable(ctx.db, { slug: action.slug }, lookup);
    else found = vanity ? await vanity(ctx, action.sub, action.name, lookup) : undefined;
  } catch (err) {
    return errorResponse(upstreamUnavailable("database", err));
  }
  if (!found) return notFoundPage();
  const { drop } = found;
  if (drop.expiresAt && drop.expiresAt.getTime() <= ctx.now()) return gonePage();
  const byPath = new Map(found.files.map((f) => [f.path, f]));
  const robots: Record<string, string> = drop.ownerId === null ? { "X-Robots-Tag": "noindex" } : {};
  let file = candidates.map((c) => byPath.get(c)).find((f) => f !== undefined);
  let status = 200;
  if (!file) {
    file = byPath.get("404.html");
    if (!file) return notFoundPage();
    status = 404;
  }
  const etag = `"${file.sha256}"`;
  const isHtml = file.contentType.startsWith("text/html");
  const headers: Record<string, string> = {
    "Content-Type": file.contentType,
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": isHtml ? HTML_CACHE : ASSET_CACHE,
    ETag: etag,
    "Accept-Ranges": "bytes",
    ...robots,
  };
  if (status === 200 && etagMatches(req.headers.get("if-none-match"), etag)) {
    return new Response(null, { status: 304, headers });
  }
  let range: { start: number; end: number } | undefined;
  if (status === 200) {
    const ifRange = req.headers.get("if-range");
    const parsed = ifRange === null || ifRange.trim() === etag ? parseRange(req.headers.get("range"), file.size) : "ignore";
    if (parsed === "unsatisfiable") {
      return new Response(null, { status: 416, headers: { ...headers, "Content-Range": `bytes */${file.size}` } });
    }
    if (parsed !== "ignore") {
      range = parsed;
      status = 206;
      headers["Content-Range"] = `bytes ${parsed.start}-${parsed.end}/${file.size}`;
    }
  }
  headers["Content-Length"] = String(range ? range.end - range.start + 1 : file.size);
  // Next drops Content-Length from route responses; server.mjs restores it from this header
  // where no compression can apply: HEAD and partial content (which must not be transformed).
  if (req.method === "HEAD" || range) headers[LENGTH_HEADER] = headers["Content-Length"];
  if (range) headers["Cache-Control"] += ", no-transform";
  if (req.method === "HEAD") return new Response(null, { status, headers });
  let body: ReadableStream<Uint8Array> | null;
  try {
    body = file.size === 0 ? null : await ctx.storage.get(file.storageRef, range);
    if (body === null && file.size !== 0) return notFoundPage();
  } catch (err) {
    return errorResponse(upstreamUnavailable("file storage", err));
  }
  return new Response(body, { status, headers });
}
