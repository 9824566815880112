import { addCacheTag } from "@vercel/functions";
import type { AppContext } from "../context";
import type { DropKey, ManifestFile } from "../db/serving";
import { errorResponse, methodNotAllowed } from "../errors";
import {
  cacheable,
  compressedBytes,
  contentBytes,
  forgetManifest,
  getManifest,
  type Encoding,
  type Manifest,
} from "./cache";
import type { HostAction } from "./host";
import { parseRange } from "./range";
import { isProtected, isUnlocked, lockPage, privateResult, unlock, UNLOCK_PATH } from "./access";
import { expandTarget, firstRedirect, headersFor, type CompiledRules } from "../rules/match";
import { pathSegments } from "../rules/pattern";

// Serving a drop: a plain function from (host action, path, request headers) to a result, with
// no dependency on Next. The self-hosted listener writes the result to the socket (node.ts); the
// Vercel serve route turns it into a web Response (serveDrop). Both run this one function.

interface HeaderGetter {
  get(name: string): string | null;
}

export interface ServeRequest {
  method: string;
  /** The request path as sent (still percent-encoded), without the query. */
  pathname: string;
  /** The query, with its "?", or "". */
  search?: string;
  headers: HeaderGetter;
  /**
   * Reads the request body, at most `cap` bytes ("too_large" past it, read no further). Only
   * the unlock form of a protected drop has a body the serve path reads.
   */
  readBody?: (cap: number) => Promise<Uint8Array | "too_large">;
}

export interface ServeResult {
  status: number;
  headers: Record<string, string>;
  /** Bytes in memory, a stream from storage, or nothing (HEAD, 304, redirects). */
  body: Uint8Array | ReadableStream<Uint8Array> | null;
}

const REVALIDATE = "public, max-age=0, must-revalidate";
const IMMUTABLE = "public, max-age=31536000, immutable";
/** What the CDN keeps at most; every change purges the drop's tag sooner. */
const CDN_MAX_SECONDS = 86_400;
const CDN_STALE_SECONDS = 60;

// --- pages -------------------------------------------------------------------------------

const PAGE_STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;color:#222;background:#fafafa}main{max-width:32rem;padding:2rem;text-align:center}h1{font-size:1.4rem}";

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The service's own small pages on drop hosts (404, 410, 400): one template. */
export function page(status: number, title: string, text: string): ServeResult {
  const body = new TextEncoder().encode(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${PAGE_STYLE}</style></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></main></body></html>`,
  );
  return {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": String(body.byteLength),
      "Cache-Control": REVALIDATE,
      "X-Content-Type-Options": "nosniff",
      "X-Robots-Tag": "noindex",
      // As every text answer of a drop host: what a compressing server in front (Next's own, on
      // `next start`) adds anyway, so both paths answer these pages alike.
      Vary: "Accept-Encoding",
    },
    body,
  };
}

export const notFoundPage = () => page(404, "Not found", "There is nothing at this address.");
const badRequestPage = () => page(400, "Bad request", "This address is not a valid path.");

function gonePage(m: Manifest, now: number): ServeResult {
  const { drop } = m;
  if (drop.ownerId === null && drop.claimable && drop.purgeAt && drop.purgeAt.getTime() > now) {
    const until = drop.purgeAt.toISOString().slice(0, 16).replace("T", " ");
    return page(
      410,
      "This drop has expired",
      `It is offline. Its owner can still claim it with the claim token until ${until} UTC; then it is deleted.`,
    );
  }
  return page(410, "This drop has expired", "The content that was published here is no longer online.");
}

// --- paths -------------------------------------------------------------------------------

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
    seg = seg.normalize("NFC");
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

/** HTML, CSS, JS, JSON (and source maps), SVG, XML, plain text and the like. */
const TEXT_TYPES =
  /^(text\/|image\/svg\+xml|application\/(json|javascript|xml|manifest\+json|ld\+json|xhtml\+xml|rss\+xml|atom\+xml)\b)/;

function compressibleType(contentType: string): boolean {
  return TEXT_TYPES.test(contentType);
}

/** br, then gzip, when the client accepts it (q > 0). */
function acceptedEncoding(header: string | null): Encoding | null {
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

function etagMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

// --- serving -----------------------------------------------------------------------------

/**
 * The CDN headers of a public drop's response: Vercel's always (other hosts ignore it), and with
 * CDN_CACHE the standard CDN-Cache-Control and the drop's Cache-Tag for any CDN in front. None
 * once the drop is about to expire: no CDN keeps a response past `expires_at`.
 */
function cdnHeaders(
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
  return { "Vercel-CDN-Cache-Control": value, "CDN-Cache-Control": value, "Cache-Tag": m.tag };
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

type Chosen = { file: ManifestFile; status: number } | { redirect: string } | { location: string; status: number };

function pick(m: Manifest, path: string): Chosen | undefined {
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
function pickWithRules(
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

/**
 * Sets the headers of the matching `_headers` rules on a response: a rule's header replaces the
 * service's of the same name (Cache-Control included), except Vary and X-Robots-Tag, which are
 * combined so compression and noindex hold. A rule that makes a response private or no-store
 * also keeps it out of the CDN. The refused names never get here (./rules/parse).
 */
function applyRuleHeaders(headers: Record<string, string>, rule: Map<string, [string, string]>): void {
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

/** Encodes a drop path for a Location header: each segment percent-encoded, slashes kept. */
function encodePath(p: string): string {
  return p.split("/").map(encodeURIComponent).join("/");
}

/** Storage no longer has a file the cached manifest names. */
const STALE = Symbol("stale manifest");
type Served = ServeResult | typeof STALE;

export async function serveDropResult(ctx: AppContext, action: HostAction, req: ServeRequest): Promise<ServeResult> {
  if (action.kind === "app" || action.kind === "invalid-drop-host") return notFoundPage();
  const key: DropKey =
    action.kind === "drop"
      ? { slug: action.slug }
      : action.kind === "custom"
        ? { domain: action.hostname }
        : { sub: action.sub, name: action.name };
  const first = await serveOnce(ctx, key, req);
  if (first !== STALE) return first;
  // Another instance changed the drop since this one cached its manifest: look again, once.
  forgetManifest(ctx, key);
  const second = await serveOnce(ctx, key, req);
  return second === STALE ? notFoundPage() : second;
}

// The steps of one answer, in order: the method (or the unlock form), the path, the drop's
// manifest, the access gate, expiry, the site rules or the file a path names, then that file's
// answer: its form (compressed or not), 304, 416 or 206, its bytes.

async function serveOnce(ctx: AppContext, key: DropKey, req: ServeRequest): Promise<Served> {
  const unlocking = req.method === "POST" && req.pathname === UNLOCK_PATH;
  if (!unlocking && req.method !== "GET" && req.method !== "HEAD") return methodNotAllowedResult();
  const path = requestPath(req.pathname);
  if (typeof path !== "string") return path;
  let m: Manifest | undefined;
  try {
    m = await getManifest(ctx, key);
  } catch (err) {
    return manifestFailure(err);
  }
  if (!m) return notFoundPage();
  if (unlocking) return unlock(ctx, m, req);
  return behindGate(ctx, m, path, req);
}

/** 405 in the API's error envelope, with Allow: GET, HEAD. */
async function methodNotAllowedResult(): Promise<ServeResult> {
  const res = errorResponse(methodNotAllowed(["GET", "HEAD"]));
  const body = new Uint8Array(await res.arrayBuffer());
  return {
    status: res.status,
    headers: { ...Object.fromEntries(res.headers), "Content-Length": String(body.byteLength) },
    body,
  };
}

/** The drop-relative path a request names, or the page saying it names none (400, 404). */
function requestPath(pathname: string): string | ServeResult {
  if (malformedPath(pathname)) return badRequestPage();
  return dropPath(pathname) ?? notFoundPage();
}

/** The database did not answer the manifest lookup: 503. */
function manifestFailure(err: unknown): ServeResult {
  console.error("[serve] manifest lookup failed:", err instanceof Error ? err.message : err);
  return unavailablePage();
}

/**
 * The access gate, before any file is looked up, so a locked answer holds nothing of the drop
 * (none of its rules or bytes); an unlocked answer is private (no CDN keeps it).
 */
function behindGate(ctx: AppContext, m: Manifest, path: string, req: ServeRequest): Promise<Served> | ServeResult {
  if (!isProtected(m)) return serveFiles(ctx, m, path, req, true);
  if (!isUnlocked(ctx, m, req)) return lockPage(401, req.pathname + (req.search ?? ""));
  return serveFiles(ctx, m, path, req, false).then((r) => (r === STALE ? r : privateResult(r)));
}

/** A drop's answer from its files; `shared`: CDNs may keep it (a public drop). */
async function serveFiles(
  ctx: AppContext,
  m: Manifest,
  path: string,
  req: ServeRequest,
  shared: boolean,
): Promise<Served> {
  const now = ctx.now();
  if (m.drop.expiresAt && m.drop.expiresAt.getTime() <= now) return gonePage(m, now);
  if (!m.rules) return serveChosen(ctx, m, pick(m, path), path, req, now, shared);
  const segs = pathSegments(path);
  const result = await serveChosen(
    ctx,
    m,
    pickWithRules(m, m.rules, path, segs, req.search ?? ""),
    path,
    req,
    now,
    shared,
  );
  const extra = result === STALE ? undefined : headersFor(m.rules, segs);
  if (extra && result !== STALE) applyRuleHeaders(result.headers, extra);
  return result;
}

/** The response for what pick chose: a redirect, a file, or 404. */
function serveChosen(
  ctx: AppContext,
  m: Manifest,
  chosen: Chosen | undefined,
  path: string,
  req: ServeRequest,
  now: number,
  shared: boolean,
): Promise<Served> | ServeResult {
  if (!chosen) return notFoundPage();
  if (shared) void addCacheTag(m.tag).catch(() => undefined);
  if ("file" in chosen) return serveFile(ctx, m, chosen.file, chosen.status, path, req, now, shared);
  return redirectResult(ctx, m, chosen, req, now, shared);
}

function robotsHeader(m: Manifest): Record<string, string> {
  return m.drop.ownerId === null ? { "X-Robots-Tag": "noindex" } : {};
}

/**
 * A redirect: a rule's target (a path on this host, or the URL a _redirects line names, 3xx
 * only), or a folder's 308 (a path on this host only: no request can redirect elsewhere).
 */
function redirectResult(
  ctx: AppContext,
  m: Manifest,
  chosen: Exclude<Chosen, { file: ManifestFile }>,
  req: ServeRequest,
  now: number,
  shared: boolean,
): ServeResult {
  const [status, location] =
    "location" in chosen ? [chosen.status, chosen.location] : [308, encodePath(chosen.redirect) + (req.search ?? "")];
  return {
    status,
    headers: {
      Location: location,
      "Content-Length": "0",
      "Cache-Control": REVALIDATE,
      ...(shared ? cdnHeaders(ctx, m, false, now) : {}),
      ...robotsHeader(m),
    },
    body: null,
  };
}

type Body = Uint8Array | ReadableStream<Uint8Array>;
/** What a read of bytes gives: the bytes, STALE, or the 503 page of a storage failure. */
type Read<T> = T | typeof STALE | ServeResult;

/**
 * A file's answer: its form (br, gzip or as stored), 304 when the client has it, 416 or 206 for
 * a range, then its bytes. A read that memory answers stays synchronous (no await) on the way.
 */
async function serveFile(
  ctx: AppContext,
  m: Manifest,
  file: ManifestFile,
  chosenStatus: number,
  path: string,
  req: ServeRequest,
  now: number,
  shared: boolean,
): Promise<Served> {
  let status = chosenStatus;
  const inMemory = cacheable(ctx, file.size);
  const compressible = inMemory && compressibleType(file.contentType);
  const rangeHeader = status === 200 ? req.headers.get("range") : null;
  const wanted = compressible && rangeHeader === null ? acceptedEncoding(req.headers.get("accept-encoding")) : null;
  const read = wanted ? compressedForm(ctx, file, wanted) : null;
  const compressed = read instanceof Promise ? await read : read;
  if (compressed !== null && !(compressed instanceof Uint8Array)) return compressed; // STALE, or a failure's 503
  const enc = compressed ? wanted : null;
  const etag = enc ? `"${file.sha256}-${enc === "br" ? "br" : "gz"}"` : `"${file.sha256}"`;
  const immutable = status === 200 && isHashedName(file.path) && file.path === path;
  const headers = fileHeaders(ctx, m, file, etag, enc, { immutable, compressible, shared, now });
  if (status === 200 && etagMatches(req.headers.get("if-none-match"), etag))
    return { status: 304, headers, body: null };
  const range =
    rangeHeader === null ? "ignore" : requestedRange(rangeHeader, req.headers.get("if-range"), file.size, etag);
  if (range === "unsatisfiable")
    return {
      status: 416,
      headers: { ...headers, "Content-Range": `bytes */${file.size}`, "Content-Length": "0" },
      body: null,
    };
  if (range !== "ignore") status = partial(headers, range, file.size);
  headers["Content-Length"] = String(
    compressed ? compressed.byteLength : range !== "ignore" ? range.end - range.start + 1 : file.size,
  );
  if (req.method === "HEAD" || (!compressed && file.size === 0)) return { status, headers, body: null };
  if (compressed) return { status, headers, body: compressed };
  const stored = storedBody(ctx, file, inMemory, range === "ignore" ? undefined : range);
  const body = stored instanceof Promise ? await stored : stored;
  return body instanceof Uint8Array || body instanceof ReadableStream ? { status, headers, body } : body; // else STALE, or a 503
}

/** The headers of a file's answer, before its length and range. */
function fileHeaders(
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
    ...robotsHeader(m),
    ...(o.shared ? cdnHeaders(ctx, m, o.immutable, o.now, file.contentType.startsWith("text/html")) : {}),
  };
  if (o.compressible) headers.Vary = "Accept-Encoding";
  if (enc) headers["Content-Encoding"] = enc;
  return headers;
}

/**
 * The compressed bytes of a cacheable text file; null when the form as stored is sent (the
 * compressed one is not smaller); STALE when storage no longer has the file.
 */
function compressedForm(
  ctx: AppContext,
  file: ManifestFile,
  enc: Encoding,
): Uint8Array | Promise<Read<Uint8Array | null>> {
  const c = compressedBytes(ctx, file, enc);
  return c instanceof Uint8Array ? c : settleCompressed(ctx, file, c);
}

async function settleCompressed(
  ctx: AppContext,
  file: ManifestFile,
  c: Promise<Uint8Array | null> | null,
): Promise<Read<Uint8Array | null>> {
  let bytes: Uint8Array | null;
  try {
    bytes = await c;
  } catch (err) {
    return storageFailure(err);
  }
  if (bytes !== null) return bytes;
  const raw = contentBytes(ctx, file);
  return (raw instanceof Uint8Array ? raw : await raw) === null ? STALE : null;
}

/** The range a Range header asks for ("ignore": the whole file), honoured only when If-Range, if sent, names this form. */
function requestedRange(
  rangeHeader: string,
  ifRange: string | null,
  size: number,
  etag: string,
): ReturnType<typeof parseRange> {
  return ifRange === null || ifRange.trim() === etag ? parseRange(rangeHeader, size) : "ignore";
}

/** Marks an answer as the part of a file a range names; its status, 206. */
function partial(headers: Record<string, string>, range: { start: number; end: number }, size: number): number {
  headers["Content-Range"] = `bytes ${range.start}-${range.end}/${size}`;
  headers["Cache-Control"] += ", no-transform";
  return 206;
}

/** The bytes of a file, or of its range, as stored: from memory when kept there, else streamed from storage. */
function storedBody(
  ctx: AppContext,
  file: ManifestFile,
  inMemory: boolean,
  range: { start: number; end: number } | undefined,
): Read<Body> | Promise<Read<Body>> {
  if (!inMemory) return streamed(ctx, file, range);
  const c = contentBytes(ctx, file);
  if (c instanceof Uint8Array) return range ? c.subarray(range.start, range.end + 1) : c;
  return c.then<Read<Body>, ServeResult>(
    (bytes) => (bytes === null ? STALE : range ? bytes.subarray(range.start, range.end + 1) : bytes),
    storageFailure,
  );
}

/** A stream of a file from storage, checked against the length its row says. */
async function streamed(
  ctx: AppContext,
  file: ManifestFile,
  range: { start: number; end: number } | undefined,
): Promise<Read<Body>> {
  try {
    const stream = await ctx.storage.get(file.storageRef, range);
    if (!stream) return STALE;
    return stream.pipeThrough(exactLength(range ? range.end - range.start + 1 : file.size, file.storageRef));
  } catch (err) {
    return storageFailure(err);
  }
}

/**
 * Passes exactly `length` bytes (the Content-Length already sent) and errors on a stream that
 * runs past them or ends short: both listeners then end the connection instead of writing
 * bytes the header did not announce, which a proxy reusing the connection would read as the
 * start of the next response. Stored objects are checked against their rows when they are
 * stored and referenced; this is the last line, for an object changed behind the app's back.
 */
function exactLength(length: number, ref: string): TransformStream<Uint8Array, Uint8Array> {
  let seen = 0;
  const mismatch = (what: string) => {
    console.error(`[serve] stored object ${ref} is ${what} than its ${length} bytes; connection ended`);
    return new Error(`stored object is ${what} than the Content-Length sent`);
  };
  return new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > length) controller.error(mismatch("longer"));
      else controller.enqueue(chunk);
    },
    flush(controller) {
      if (seen < length) controller.error(mismatch("shorter"));
    },
  });
}

function unavailablePage(): ServeResult {
  const r = page(503, "Temporarily unavailable", "This drop cannot be served right now. Try again in a minute.");
  r.headers["Retry-After"] = "30";
  return r;
}

function storageFailure(err: unknown): ServeResult {
  console.error("[serve] storage read failed:", err instanceof Error ? err.message : err);
  return unavailablePage();
}

/** The same, as a web Response (the Vercel serve route). */
export async function serveDrop(ctx: AppContext, action: HostAction, req: ServeRequest): Promise<Response> {
  const r = await serveDropResult(ctx, action, req);
  return new Response(r.body as BodyInit | null, { status: r.status, headers: r.headers });
}
