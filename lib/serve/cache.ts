import { brotliCompress, constants as zlibConstants, gzip } from "node:zlib";
import { promisify } from "node:util";
import { LRUCache } from "lru-cache";
import { dangerouslyDeleteByTag, invalidateByTag } from "@vercel/functions";
import type { AppContext } from "../context";
import { compileRules, type CompiledRules } from "../rules/match";
import { RULE_FILES } from "../rules/types";
import {
  findDropVersion,
  loadManifest,
  type DropKey,
  type FeedChange,
  type ManifestDrop,
  type ManifestFile,
} from "../db/serving";
import { FEED_STALE_MS, feedCurrent } from "./feed";
import { metrics } from "../metrics/registry";
import { boundCounter } from "../metrics/counts";

/** cache_requests_total's children, made once: the serve path only increments them. */
let counted:
  | Record<"manifestHit" | "manifestRevalidate" | "manifestMiss" | "contentHit" | "contentMiss", { inc(): void }>
  | undefined;
function cacheCounts() {
  if (!counted) {
    const c = metrics().cacheRequests;
    counted = {
      manifestHit: boundCounter(c, { cache: "manifest", result: "hit" }),
      manifestRevalidate: boundCounter(c, { cache: "manifest", result: "revalidate" }),
      manifestMiss: boundCounter(c, { cache: "manifest", result: "miss" }),
      contentHit: boundCounter(c, { cache: "content", result: "hit" }),
      contentMiss: boundCounter(c, { cache: "content", result: "miss" }),
    };
  }
  return counted;
}

// The serve path's memory: drop manifests (one database lookup per drop version, not per
// request) and small contents by SHA-256 (raw, and br/gzip for text types), under a byte budget.
//
// Freshness: a change made in this process (dropChanged) takes effect at once. Another instance
// sharing the database notices within MANIFEST_REVALIDATE_MS through the change feed (feed.ts):
// one read per interval for all drops forgets the manifests of the drops it names; the others
// stay in memory (checked against their row after MANIFEST_SAFETY_TTL_MS). When the feed cannot
// be read, a cached manifest is checked against the drop row (one small query) after
// MANIFEST_REVALIDATE_MS. A manifest is loaded whole, in one statement, so a lookup never mixes
// two versions.
//
// The caches live on globalThis, like the context: the listener's bundle of lib/serve and Next's
// bundles of lib/drops are separate module instances in one process and must share them.

export const MANIFEST_REVALIDATE_MS = FEED_STALE_MS;
/** While the feed is read, a cached manifest is still checked against its row after this long. */
const MANIFEST_SAFETY_TTL_MS = 5 * 60_000;
/** Most file rows kept across all cached manifests (the oldest manifests leave first). */
const MANIFEST_MAX_ROWS = 200_000;
/** Contents larger than this are streamed from storage on every request (and not compressed). */
const CONTENT_MAX_ENTRY = 4 * 1024 * 1024;

export interface Manifest {
  drop: ManifestDrop;
  files: Map<string, ManifestFile>;
  /** Cache tag of the drop at the CDN. */
  tag: string;
  /**
   * Every cache tag of the answers (what `addCacheTag` is given): the drop's, and on a preview
   * host also the version's and, through an alias, the alias's (cacheTagsOf).
   */
  tags: string[];
  /** The same as a `Cache-Tag` header's value (made once per manifest, not per answer). */
  tagHeader: string;
  /** The drop's compiled _redirects and _headers; absent when it has none. */
  rules?: CompiledRules;
}

interface ManifestEntry {
  manifest: Manifest | undefined;
  checkedAt: number;
  rows: number;
}

export type Encoding = "br" | "gzip";

// Both caches are lru-cache's, bounded by what they hold (file rows, bytes), not by entries.
// Beside each, a plain Map of the loads in flight, so concurrent misses share one: lru-cache's
// fetch() would hold that too, but it aborts a fetch whose key is deleted and rejects its
// waiters (a drop change would turn the requests already waiting into 503s), and a manifest's
// freshness runs on ctx.now() (tests move that clock), not on lru-cache's ttl clock.
interface ServeCaches {
  /** Sized by file rows (MANIFEST_MAX_ROWS); no ttl: a stale entry is revalidated, not dropped. */
  manifests: LRUCache<string, ManifestEntry>;
  loading: Map<string, Promise<Manifest | undefined>>;
  /** Bumped by every change; a load that started before one is not stored. */
  generation: number;
  /** Contents and their compressed forms by hash, sized by bytes (SERVE_CACHE_BYTES). */
  contents: LRUCache<string, Uint8Array>;
  pending: Map<string, Promise<Uint8Array | null>>;
  /** What the change feed calls with the changes it read (one function per cache set). */
  applyFeed: (changes: FeedChange[] | "all") => void;
}

const KEY = Symbol.for("dropsite.serveCaches");
const slot = globalThis as unknown as Record<symbol, WeakMap<AppContext, ServeCaches> | undefined>;

function caches(ctx: AppContext): ServeCaches {
  const all = (slot[KEY] ??= new WeakMap());
  let c = all.get(ctx);
  if (!c) {
    const made: ServeCaches = {
      manifests: new LRUCache({ maxSize: MANIFEST_MAX_ROWS, sizeCalculation: (entry) => entry.rows }),
      loading: new Map(),
      generation: 0,
      // lru-cache sizes are positive: an empty content (and the NOT_SMALLER marker) counts as one
      // byte, and SERVE_CACHE_BYTES=0 (off: only empty files are "cacheable") keeps one such byte.
      contents: new LRUCache({
        maxSize: Math.max(1, budget(ctx)),
        sizeCalculation: (bytes) => Math.max(1, bytes.byteLength),
      }),
      pending: new Map(),
      applyFeed: (changes) => applyFeed(made, changes),
    };
    c = made;
    all.set(ctx, c);
  }
  return c;
}

export function cacheKey(key: DropKey): string {
  if ("slug" in key) return `s:${key.slug}`;
  if ("preview" in key) return "alias" in key ? `p:${key.preview}:a${key.alias}` : `p:${key.preview}:v${key.version}`;
  if ("domain" in key) return `d:${key.domain}`;
  return `v:${key.sub}--${key.name}`;
}

export function dropTag(dropId: string): string {
  return `drop-${dropId}`;
}

/** The tag of a preview host's answers of one version (`<slug>---v<N>`, and an alias's while it names N). */
export function versionTag(dropId: string, version: number): string {
  return `drop-${dropId}-v${version}`;
}

/** The tag of an alias host's answers (`<slug>---<alias>`), purged when the alias moves or goes. */
export function aliasTag(dropId: string, alias: string): string {
  return `drop-${dropId}-alias-${alias}`;
}

/**
 * The tags a drop's answers carry at a CDN: the drop's on every host (what a change of the whole
 * drop purges: delete, disable, access, replace); a preview host's add its version's (what
 * pruning that version purges) and an alias host's its alias's (what moving or deleting it
 * purges), so neither of those touches the live host's cached answers.
 */
export function cacheTagsOf(key: DropKey, drop: ManifestDrop): string[] {
  const tags = [dropTag(drop.id)];
  if (!("preview" in key) || drop.previewVersion == null) return tags;
  tags.push(versionTag(drop.id, drop.previewVersion));
  if ("alias" in key) tags.push(aliasTag(drop.id, key.alias));
  return tags;
}

/** Keeps a manifest (or its absence); the least recently used leave first past MANIFEST_MAX_ROWS. */
function store(c: ServeCaches, k: string, manifest: Manifest | undefined, now: number): void {
  c.manifests.set(k, { manifest, checkedAt: now, rows: manifest ? manifest.files.size + 1 : 1 });
}

async function load(ctx: AppContext, key: DropKey): Promise<Manifest | undefined> {
  const found = await loadManifest(ctx.db, key);
  if (!found) return undefined;
  const files = new Map(found.files.map((f) => [f.path, f]));
  // The rules files are read at deploy, never served.
  files.delete(RULE_FILES.redirects);
  files.delete(RULE_FILES.headers);
  const tags = cacheTagsOf(key, found.drop);
  const manifest: Manifest = { drop: found.drop, files, tag: tags[0]!, tags, tagHeader: tags.join(",") };
  const rules = compileRules(found.siteRules);
  if (rules) manifest.rules = rules;
  return manifest;
}

/**
 * Applies what the change feed read: forgets the manifests of the drops, domains and accounts it
 * names (or all of them when the feed starts over), and bumps the generation so a load in
 * flight, which may have read the old state, is not kept.
 */
function applyFeed(c: ServeCaches, changes: FeedChange[] | "all"): void {
  c.generation++;
  if (changes === "all") {
    c.manifests.clear();
    c.loading.clear();
    return;
  }
  const dropIds = new Set<string>();
  const owners = new Set<string>();
  const slugs = new Set<string>();
  for (const ch of changes) {
    if (ch.kind === "drop") {
      if (ch.dropId) dropIds.add(ch.dropId);
      if (ch.slug) {
        c.manifests.delete(cacheKey({ slug: ch.slug }));
        slugs.add(ch.slug);
      }
    } else if (ch.kind === "domain") {
      if (ch.ref) c.manifests.delete(cacheKey({ domain: ch.ref }));
    } else if (ch.ref) {
      owners.add(ch.ref);
    }
  }
  if (dropIds.size === 0 && owners.size === 0) return;
  // The drops' other names (their preview hosts too), their owners' drops (a vanity sub or
  // suspension changed), and names under a vanity sub or domain, or preview hosts of a changed
  // slug, cached as absent (a new drop or a sub taken may resolve them).
  const names: string[] = [];
  for (const [k, entry] of c.manifests.entries()) {
    const drop = entry.manifest?.drop;
    if (
      drop
        ? dropIds.has(drop.id) || (drop.ownerId !== null && owners.has(drop.ownerId))
        : indirect(k) || (k.startsWith("p:") && slugs.has(previewSlug(k)))
    )
      names.push(k);
  }
  for (const k of names) c.manifests.delete(k);
}

/**
 * The manifest of the drop a host names, from memory while the change feed has not named its
 * drop (and it is younger than MANIFEST_SAFETY_TTL_MS); when the feed cannot be read, from
 * memory only for MANIFEST_REVALIDATE_MS and then checked against the drop row. No promise when
 * memory answers (the serve path's usual case, every request); a promise when the feed or the
 * database must be asked first.
 */
export function lookupManifest(ctx: AppContext, key: DropKey): Manifest | undefined | Promise<Manifest | undefined> {
  const c = caches(ctx);
  const k = cacheKey(key);
  const current = feedCurrent(ctx, c.applyFeed);
  if (typeof current === "boolean") return fromMemoryOrLoad(ctx, key, c, k, current);
  return current.then((feedOk) => fromMemoryOrLoad(ctx, key, c, k, feedOk));
}

function fromMemoryOrLoad(
  ctx: AppContext,
  key: DropKey,
  c: ServeCaches,
  k: string,
  feedOk: boolean,
): Manifest | undefined | Promise<Manifest | undefined> {
  const now = ctx.now();
  const entry = c.manifests.get(k);
  if (entry && now - entry.checkedAt < (feedOk ? MANIFEST_SAFETY_TTL_MS : MANIFEST_REVALIDATE_MS)) {
    cacheCounts().manifestHit.inc();
    return entry.manifest;
  }
  if (entry?.manifest) cacheCounts().manifestRevalidate.inc();
  else cacheCounts().manifestMiss.inc();
  const inFlight = c.loading.get(k);
  if (inFlight) return inFlight;
  const generation = c.generation;
  const work = (async () => {
    let manifest: Manifest | undefined;
    if (entry?.manifest) {
      const row = await findDropVersion(ctx.db, key);
      manifest = row && row.version === entry.manifest.drop.version ? entry.manifest : await load(ctx, key);
    } else {
      manifest = await load(ctx, key);
    }
    if (c.generation === generation) store(c, k, manifest, now);
    return manifest;
  })();
  c.loading.set(k, work);
  return work.finally(() => {
    if (c.loading.get(k) === work) c.loading.delete(k);
  });
}

/**
 * Forgets one cached manifest: the serve path calls it when storage no longer has a file the
 * manifest names (another instance replaced or deleted the drop within the revalidation window).
 */
export function forgetManifest(ctx: AppContext, key: DropKey): void {
  const c = caches(ctx);
  c.generation++;
  c.manifests.delete(cacheKey(key));
}

/** Keys that name a drop through something else (a vanity sub and name, a custom domain). */
function indirect(k: string): boolean {
  return k.startsWith("v:") || k.startsWith("d:");
}

/** The slug of a preview key's cache key (`p:<slug>:<selector>`). */
function previewSlug(k: string): string {
  return k.slice(2, k.indexOf(":", 2));
}

/** Whether a cache key is one of a slug's preview hosts. */
function previewOf(k: string, slug: string): boolean {
  return k.startsWith("p:") && previewSlug(k) === slug;
}

/**
 * Called by lib/domains after a custom domain is created, activated, returned to pending or
 * deleted: forgets what this process knows of the hostname (another instance notices within
 * MANIFEST_REVALIDATE_MS, as for drops). A domain that stops serving a drop (`dropId`) also
 * purges the drop's cached responses at the CDN, so its copies on that hostname go too.
 */
export async function domainChanged(ctx: AppContext, hostname: string, stopped?: { dropId: string }): Promise<void> {
  const c = caches(ctx);
  c.generation++;
  const k = cacheKey({ domain: hostname });
  c.manifests.delete(k);
  c.loading.delete(k);
  if (!stopped) return;
  const tag = dropTag(stopped.dropId);
  try {
    await dangerouslyDeleteByTag(tag);
  } catch (err) {
    console.error(`[serve] could not purge cache tag ${tag}:`, err instanceof Error ? err.message : err);
  }
}

type DropChange =
  | "deploy"
  /** Versions pruned: only their preview hosts' answers change. */
  | { pruned: number[] }
  /** An alias created, moved or deleted: only its host's answers change. */
  | { alias: string }
  | "replace"
  | "append"
  | "rollback"
  | "delete"
  | "claim"
  | "expiry"
  | "access"
  | "protect"
  | "disable"
  | "enable";

/**
 * Called by lib/drops after a change to a drop is committed: forgets its manifest in this
 * process and purges its responses from the CDN: on Vercel by tag (elsewhere a no-op), and at
 * CDN_PURGE_URL when it is set (a CDN in front of a self-hosted install).
 * Deletion, expiry, protection (a drop switched to a password) and an operator's disable remove the cached responses
 * outright, so the CDN cannot serve a stale copy while it revalidates; other changes mark them stale.
 * The drop's tag is on every answer of every host (preview hosts too); pruning removes only the
 * pruned versions' tags, and an alias's change only its tag (cacheTagsOf), outright too.
 */
export async function dropChanged(
  ctx: AppContext,
  drop: { id: string; slug: string },
  change: DropChange,
): Promise<void> {
  const c = caches(ctx);
  c.generation++;
  c.manifests.delete(cacheKey({ slug: drop.slug }));
  const names: string[] = [];
  for (const [k, entry] of c.manifests.entries()) {
    if (
      previewOf(k, drop.slug) ||
      (indirect(k) && (entry.manifest === undefined || entry.manifest.drop.id === drop.id))
    )
      names.push(k);
  }
  for (const k of names) c.manifests.delete(k);
  // A load that started before the change may have read the old version: later lookups must
  // not join it (they start their own), so the change takes effect at once in this process.
  for (const k of c.loading.keys())
    if (k === cacheKey({ slug: drop.slug }) || indirect(k) || previewOf(k, drop.slug)) c.loading.delete(k);
  if (change === "deploy") return;
  const tags =
    typeof change === "string"
      ? [dropTag(drop.id)]
      : "alias" in change
        ? [aliasTag(drop.id, change.alias)]
        : [...change.pruned].sort((x, y) => x - y).map((v) => versionTag(drop.id, v));
  if (tags.length === 0) return;
  const outright =
    typeof change !== "string" ||
    change === "delete" ||
    change === "expiry" ||
    change === "protect" ||
    change === "disable";
  try {
    if (outright) await dangerouslyDeleteByTag(tags.length === 1 ? tags[0]! : tags);
    else await invalidateByTag(tags.length === 1 ? tags[0]! : tags);
  } catch (err) {
    console.error(`[serve] could not purge cache tag ${tags.join(",")}:`, err instanceof Error ? err.message : err);
  }
  if (ctx.env.CDN_PURGE_URL) await purgeAt(ctx.env.CDN_PURGE_URL, ctx.env.CDN_PURGE_TOKEN, tags);
}

/** How long a change waits for the CDN's purge endpoint before it answers anyway. */
const PURGE_TIMEOUT_MS = 5000;

/**
 * POSTs {"tags": [...]} to CDN_PURGE_URL (the shape of Cloudflare's purge by tag; a small
 * worker can translate it for any other CDN). Awaited by the change, so its response comes after
 * the purge; a failure is logged on one line and does not fail the change, which is committed.
 */
async function purgeAt(url: string, token: string | undefined, tags: string[]): Promise<void> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ tags }),
      signal: AbortSignal.timeout(PURGE_TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (!res.ok) console.error(`[serve] CDN purge of ${tags.join(",")} answered ${res.status}`);
  } catch (err) {
    console.error(`[serve] CDN purge of ${tags.join(",")} failed:`, err instanceof Error ? err.message : err);
  }
}

// --- contents -------------------------------------------------------------------------------

function budget(ctx: AppContext): number {
  return ctx.env.SERVE_CACHE_BYTES;
}

/** Whether a content of this size is kept in memory (and compressed). */
export function cacheable(ctx: AppContext, size: number): boolean {
  return size <= Math.min(CONTENT_MAX_ENTRY, budget(ctx) / 4);
}

async function readAll(stream: ReadableStream<Uint8Array>, size: number): Promise<Uint8Array> {
  const out = new Uint8Array(size);
  let offset = 0;
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    if (offset + chunk.byteLength > size) throw new Error("stored content is longer than its row says");
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  if (offset !== size) throw new Error("stored content is shorter than its row says");
  return out;
}

function once(c: ServeCaches, k: string, make: () => Promise<Uint8Array | null>): Promise<Uint8Array | null> {
  const pending = c.pending.get(k);
  if (pending) return pending;
  const p = make().finally(() => c.pending.delete(k));
  c.pending.set(k, p);
  return p;
}

/** The bytes of a cacheable file, from memory or read once from storage; null when storage has none. */
export function contentBytes(ctx: AppContext, file: ManifestFile): Promise<Uint8Array | null> | Uint8Array {
  const c = caches(ctx);
  const hit = c.contents.get(file.sha256);
  if (hit) {
    cacheCounts().contentHit.inc();
    return hit;
  }
  cacheCounts().contentMiss.inc();
  return once(c, file.sha256, async () => {
    const stream = await ctx.storage.get(file.storageRef);
    if (!stream) return null;
    const bytes = await readAll(stream, file.size);
    c.contents.set(file.sha256, bytes);
    return bytes;
  });
}

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
const NOT_SMALLER = new Uint8Array(0);

/**
 * The br or gzip form of a cacheable text file, compressed once per content and kept by hash.
 * Null when it would not be smaller (or storage has none): the identity form is sent then.
 */
export function compressedBytes(
  ctx: AppContext,
  file: ManifestFile,
  enc: Encoding,
): Promise<Uint8Array | null> | Uint8Array | null {
  const c = caches(ctx);
  const k = `${file.sha256}:${enc}`;
  const hit = c.contents.get(k);
  if (hit) return hit === NOT_SMALLER ? null : hit;
  return once(c, k, async () => {
    const raw = await contentBytes(ctx, file);
    if (!raw) return null;
    const out =
      enc === "br"
        ? await brotli(raw, {
            params: {
              [zlibConstants.BROTLI_PARAM_QUALITY]: raw.byteLength <= 256 * 1024 ? 11 : 6,
              [zlibConstants.BROTLI_PARAM_SIZE_HINT]: raw.byteLength,
            },
          })
        : await gzipAsync(raw, { level: 9 });
    const bytes =
      out.byteLength < raw.byteLength ? new Uint8Array(out.buffer, out.byteOffset, out.byteLength) : NOT_SMALLER;
    c.contents.set(k, bytes);
    return bytes === NOT_SMALLER ? null : bytes;
  });
}
