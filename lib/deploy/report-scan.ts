import { LRUCache } from "lru-cache";
import type { AppContext } from "../context";
import { fileUrl, ORIGIN, referencesOf, type TextKind } from "./report-refs";
import { secretsOf, type SecretFound } from "./report-secrets";

// A scan of one content for the deploy report (lib/deploy/report.ts): its references and
// secrets, read once and remembered per content, so a redeploy of the same bytes reads nothing
// back from storage.

const MB = 1024 * 1024;

/** Contents whose scans are remembered per process (see ContentScan), and their approximate bytes. */
export const SCAN_CACHE_ENTRIES = 50_000;
export const SCAN_CACHE_BYTES = 32 * MB;

/**
 * What a file's first `scanned` bytes hold, read as a file of `kind`, whatever its path: the
 * references as written (they resolve against the path only when the report is made, since one
 * content can sit at two paths), the href of an HTML document's first <base href>, and where
 * secrets are, by kind, first line and count (never their text). Remembered per content.
 */
export interface ContentScan {
  kind: TextKind;
  scanned: number;
  refs: string[];
  baseHref: string | null;
  secrets: SecretFound[];
}

/** The URL a file's relative references resolve against, or null when they leave the drop (or it has none). */
export function baseOf(scan: ContentScan, path: string): string | null {
  if (scan.kind === "text") return null;
  if (scan.baseHref === null) return fileUrl(path);
  // A base elsewhere sends every relative reference elsewhere.
  try {
    const resolved = new URL(scan.baseHref, fileUrl(path));
    return resolved.origin === ORIGIN ? resolved.href : null;
  } catch {
    return null;
  }
}

const decoder = new TextDecoder("utf-8");

/** Scans the first `length` bytes of a file's content as a file of `kind`. */
export function scanBytes(kind: TextKind, bytes: Uint8Array, length: number): ContentScan {
  const text = decoder.decode(bytes.subarray(0, length));
  return { kind, scanned: Math.min(length, bytes.byteLength), secrets: secretsOf(text), ...referencesOf(kind, text) };
}

type ScanCache = LRUCache<string, ContentScan>;

const CACHE_KEY = Symbol.for("dropsite.reportScans");

const cacheSlot = globalThis as unknown as Record<symbol, WeakMap<AppContext, ScanCache> | undefined>;

/** Remembered scans by `scope:sha256`, bounded by count and by an estimate of their bytes. */
export function scanCache(ctx: AppContext): ScanCache {
  const all = (cacheSlot[CACHE_KEY] ??= new WeakMap());
  let c = all.get(ctx);
  if (!c) {
    c = new LRUCache<string, ContentScan>({
      max: SCAN_CACHE_ENTRIES,
      maxSize: SCAN_CACHE_BYTES,
      sizeCalculation: (scan, key) =>
        256 +
        key.length * 2 +
        scan.refs.reduce((n, r) => n + 64 + r.length * 2, 0) +
        (scan.baseHref?.length ?? 0) * 2 +
        scan.secrets.length * 64,
    });
    all.set(ctx, c);
  }
  return c;
}

/** The remembered scan of a content of a scope, read as `kind` up to `scanned` bytes. */
export function recall(c: ScanCache, key: string, kind: TextKind, scanned: number): ContentScan | undefined {
  const scan = c.get(key);
  return scan && scan.kind === kind && scan.scanned === scanned ? scan : undefined;
}

export function remember(c: ScanCache, key: string, scan: ContentScan): void {
  // An entry larger than the whole budget is refused by the cache (not stored), as before.
  // The references are copied out of the decoded file: V8 makes a substring a view of the
  // string it was cut from, so a remembered reference would keep the whole file's text alive
  // (a zip deploy's memory then grew with every text file it scanned).
  c.set(key, {
    ...scan,
    refs: scan.refs.map(ownString),
    baseHref: scan.baseHref === null ? null : ownString(scan.baseHref),
  });
}

/** A copy of a string that shares no memory with the string it may have been cut from. */
function ownString(s: string): string {
  return Buffer.from(s, "utf8").toString("utf8");
}
