import { addCacheTag } from "@vercel/functions";
import type { AppContext } from "../context";
import type { DropKey, ManifestFile } from "../db/serving";
import { errorResponse, methodNotAllowed } from "../errors";
import { cacheable, forgetManifest, lookupManifest, type Manifest } from "./cache";
import type { HostAction } from "./host";
import { isProtected, privateResult } from "./access";
import { disabledResult, visitedUrl } from "./disabled";
import { gateOpen, gateRoute, isGateForm, lockedAnswer } from "./gate";
import { headersFor } from "../rules/match";
import { pathSegments } from "../rules/pattern";
import { compressedForm, STALE, storedBody, type Served } from "./bytes";
import {
  acceptedEncoding,
  applyRuleHeaders,
  cdnHeaders,
  compressibleType,
  etagMatches,
  fileHeaders,
  partial,
  REVALIDATE,
  requestedRange,
  robotsHeader,
} from "./headers";
import { badRequestPage, gonePage, noPreviewPage, notFoundPage, unavailablePage } from "./pages";
import { dropPath, encodePath, isHashedName, malformedPath, pick, pickWithRules, type Chosen } from "./paths";
import type { ServeRequest, ServeResult } from "./types";

// Serving a drop: a plain function from (host action, path, request headers) to a result, with
// no dependency on Next. The self-hosted listener writes the result to the socket (node.ts); the
// Vercel serve route turns it into a web Response (serveDrop). Both run this one function. Its
// parts: the request and result types (types.ts), the service's pages (pages.ts), which file
// answers a path (paths.ts), the answer's headers (headers.ts) and a file's bytes (bytes.ts).

export async function serveDropResult(ctx: AppContext, action: HostAction, req: ServeRequest): Promise<ServeResult> {
  if (action.kind === "app" || action.kind === "invalid-drop-host") return notFoundPage();
  const key = keyOf(action);
  const first = await serveOnce(ctx, key, req);
  if (first !== STALE) return first;
  // Another instance changed the drop since this one cached its manifest: look again, once.
  forgetManifest(ctx, key);
  req.served = undefined;
  const second = await serveOnce(ctx, key, req);
  return second === STALE ? notFoundPage() : second;
}

/** The drop (and, on a preview host, the version) a host names. */
function keyOf(action: Exclude<HostAction, { kind: "app" | "invalid-drop-host" }>): DropKey {
  if (action.kind === "drop") return { slug: action.slug };
  if (action.kind === "custom") return { domain: action.hostname };
  if (action.kind === "vanity") return { sub: action.sub, name: action.name };
  return { preview: action.slug, ...action.selector };
}

// The steps of one answer, in order: the method (or the unlock form), the path, the drop's
// manifest, the access gate, expiry, the site rules or the file a path names, then that file's
// answer: its form (compressed or not), 304, 416 or 206, its bytes.

async function serveOnce(ctx: AppContext, key: DropKey, req: ServeRequest): Promise<Served> {
  if (!isGateForm(req) && req.method !== "GET" && req.method !== "HEAD") return methodNotAllowedResult();
  const path = requestPath(req.pathname);
  if (typeof path !== "string") return path;
  let m: Manifest | undefined;
  try {
    const found = lookupManifest(ctx, key);
    m = found instanceof Promise ? await found : found;
  } catch (err) {
    return manifestFailure(err);
  }
  if (!m) return notFoundPage();
  req.served = m.drop;
  if (m.drop.disabled) return disabledResult(m, req)!;
  // A preview host whose version the drop no longer keeps: the service's page, none of its bytes.
  if (m.drop.previewVersion === null && "preview" in key)
    return noPreviewPage("alias" in key ? { alias: key.alias } : { version: key.version });
  return gateRoute(ctx, m, req) ?? behindGate(ctx, m, path, req);
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
  const open = gateOpen(ctx, m, req);
  const pass = (yes: boolean) =>
    yes
      ? serveFiles(ctx, m, path, req, false).then((r) => (r === STALE ? r : privateResult(r)))
      : lockedAnswer(ctx, m, req);
  return open instanceof Promise ? open.then(pass) : pass(open);
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
  if (!chosen) return notFoundPage(visitedUrl(req));
  if (shared) void addCacheTag(m.tags.length === 1 ? m.tag : m.tags).catch(() => undefined);
  if ("file" in chosen) return serveFile(ctx, m, chosen.file, chosen.status, path, req, now, shared);
  return redirectResult(ctx, m, chosen, req, now, shared);
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

/** The same, as a web Response (the Vercel serve route). */
export async function serveDrop(ctx: AppContext, action: HostAction, req: ServeRequest): Promise<Response> {
  const r = await serveDropResult(ctx, action, req);
  return new Response(r.body as BodyInit | null, { status: r.status, headers: r.headers });
}
