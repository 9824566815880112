import { waitUntil } from "@vercel/functions";
import type { AppContext } from "../context";
import type { DropKey } from "../db/serving";
import { clientAddress } from "../ratelimit/address";
import { cacheKey, lookupManifest } from "../serve/cache";
import { resolveHost, type HostAction, type HostConfig } from "../serve/host";
import type { ServeRequest, ServeResult } from "../serve/types";
import { classify, countryCode, referrerHost } from "./classify";
import { addPerson, bump, tallyOf } from "./collector";
import { countViewerView } from "./viewers";

// The one call the data plane makes after answering a drop's request (lib/plane/node.ts): what
// the answer adds to the drop's counts of the day. Every request counts in exactly one of
// `previews` (a link unfurler), `bot_requests` (isbot), `views` (a GET answered 200 or 304 with
// text/html) or `requests` (anything else); `bytes` and `not_found` are those of views and
// requests; visitors, paths, referrers and countries are those of views. A preview host's
// (`<slug>---v<N>`, `<slug>---<alias>`) answers count toward its drop like the live host's;
// `preview_views` is the part of `views` that came through one.

/** What countAnswer reads of the request: what the serve path read, and the drop it found. */
type Asked = Pick<ServeRequest, "method" | "pathname" | "headers" | "served" | "viewer">;

/** Characters of a path kept as its key (a longer one is cut). */
const PATH_CHARS = 300;

function keyOf(action: HostAction): DropKey | undefined {
  if (action.kind === "drop") return { slug: action.slug };
  if (action.kind === "custom") return { domain: action.hostname };
  if (action.kind === "vanity") return { sub: action.sub, name: action.name };
  return undefined;
}

/** Counts a 405 for the drop its host names, once that drop is looked up (at once when its manifest is cached). */
function countRefusedMethod(ctx: AppContext, hosts: HostConfig, action: HostAction, req: Asked, r: ServeResult): void {
  const key = action.kind === "preview" ? { slug: action.slug } : keyOf(action);
  if (!key) return;
  const count = (m: Awaited<ReturnType<typeof lookupManifest>>) => {
    if (m) countAnswer(ctx, hosts, action, { ...req, served: m.drop }, r);
  };
  try {
    const found = lookupManifest(ctx, key);
    if (found instanceof Promise) found.then(count, () => undefined);
    else count(found);
  } catch {
    // The database did not answer: the request goes uncounted, as its answer did not need it.
  }
}

/** Body bytes the answer puts on the wire. */
function bodyBytes(method: string, r: ServeResult): number {
  if (method === "HEAD" || r.body === null) return 0;
  if (r.body instanceof Uint8Array) return r.body.byteLength;
  return Number(r.headers["Content-Length"] ?? 0) || 0;
}

export function countAnswer(ctx: AppContext, hosts: HostConfig, action: HostAction, req: Asked, r: ServeResult): void {
  if (!ctx.env.STATS) return;
  const drop = req.served;
  if (!drop) {
    // A method a drop host does not serve is answered 405 before any lookup (no byte of the drop
    // either way); it is still one of the drop's requests, found once the answer is out.
    if (r.status === 405) countRefusedMethod(ctx, hosts, action, req, r);
    return;
  }
  const ua = req.headers.get("user-agent") ?? "";
  const kind = classify(ua);
  const { tally, scheduled } = tallyOf(ctx, drop.id);
  // On Vercel the function stays up after answering until the flush has run.
  if (ctx.env.VERCEL) waitUntil(scheduled);
  if (kind === "preview") {
    tally.previews++;
    return;
  }
  if (kind === "bot") {
    tally.botRequests++;
    return;
  }
  tally.bytes += bodyBytes(req.method, r);
  if (r.status === 404) tally.notFound++;
  const type = r.headers["Content-Type"] ?? "";
  if (req.method !== "GET" || (r.status !== 200 && r.status !== 304) || !type.startsWith("text/html")) {
    tally.requests++;
    return;
  }
  tally.views++;
  if (action.kind === "preview") tally.previewViews++;
  if (req.viewer) countViewerView(ctx, drop.id, req.viewer);
  addPerson(tally, clientAddress(req, ctx.env), ua);
  bump(tally.paths, req.pathname.slice(0, PATH_CHARS));
  const ref = referrerHost(req.headers.get("referer"));
  if (ref !== undefined && !ownHost(ref, req.headers.get("host"), action, drop.slug, hosts)) bump(tally.referrers, ref);
  if (ctx.env.TRUST_PROXY) {
    const country = req.headers.get("cf-ipcountry") ?? req.headers.get("x-vercel-ip-country");
    if (country) bump(tally.countries, countryCode(country));
  }
}

/**
 * What each referrer host names, per host configuration (resolveHost is a pure function of the
 * host and the config; the data plane's config is one object for the process). Keyed by the
 * remembered referrer host itself, so a view builds no key.
 */
const resolved = new WeakMap<HostConfig, Map<string, HostAction>>();
const RESOLVED_MAX = 2000;

function resolvedHost(ref: string, hosts: HostConfig): HostAction {
  let known = resolved.get(hosts);
  if (!known) resolved.set(hosts, (known = new Map<string, HostAction>()));
  let action = known.get(ref);
  if (!action) {
    if (known.size >= RESOLVED_MAX) known.clear();
    known.set(ref, (action = resolveHost(ref, hosts)));
  }
  return action;
}

/** Whether a referrer host is the drop's own (the host asked, or any host that names the same drop). */
function ownHost(ref: string, host: string | null, asked: HostAction, slug: string, hosts: HostConfig): boolean {
  if (host && ref === host.toLowerCase()) return true;
  const other = resolvedHost(ref, hosts);
  if ((other.kind === "drop" || other.kind === "preview") && other.slug === slug) return true;
  const [otherKey, key] = [keyOf(other), keyOf(asked)];
  return otherKey !== undefined && key !== undefined && cacheKey(otherKey) === cacheKey(key);
}
