import { createHash } from "node:crypto";
import type { AppContext } from "../context";
import { ApiError, upstreamUnavailable } from "../errors";
import { sha256Hex } from "../ids";
import { APP_UPLOAD_MAX_BYTES } from "../plans";
import { mapLimit } from "../storage/types";
import { findContent, groupByScope, markContentStored, pinContents, pinStoredContents, purgeContents, unpinContents, type PinnedContent } from "../db/contents";
import type { OldContent } from "../db/queries";
import type { InputFile } from "./paths";
import { contentTypeFor } from "../drops/content-type";

// Content-addressed bytes. An account's files share one stored object per SHA-256
// (`c/<scope>/<sha256>`); anonymous bytes get a scope of their own (per drop, or per preflight),
// so nothing is ever shared, or revealed, across accounts. A deploy pins the contents it uses
// for its duration, stores only the ones without bytes, and unpins after its rows commit; a
// failed deploy and a replaced or deleted drop purge what no file references any more.

const PUT_CONCURRENCY = 8;
/** Direct uploads read back at once by one deploy. */
const VERIFY_CONCURRENCY = 4;

/** The content scope of an account's bytes. */
export function accountScope(accountId: string): string {
  return `a-${accountId}`;
}

/** The content scope of an anonymous drop's bytes. */
export function anonymousDropScope(dropId: string): string {
  return `d-${dropId}`;
}

export function contentKey(scope: string, sha256: string): string {
  return `c/${scope}/${sha256}`;
}

export interface ContentFile {
  path: string;
  sha256: string;
  size: number;
  contentType: string;
  storageRef: string;
}

/** Counts what a deploy stored and what it reused (the CLI's "unchanged"). */
export interface StoreOutcome {
  files: ContentFile[];
  /** Hashes pinned by this deploy: release them once its rows are committed or refused. */
  pinned: string[];
}

/**
 * Pins the contents of files in a scope, stores the bytes of those not yet stored, and returns
 * the file references. On a storage failure the pins are released and what only this deploy
 * stored is purged; the failure is thrown as 503.
 */
export async function storeContents(ctx: AppContext, scope: string, input: InputFile[]): Promise<StoreOutcome> {
  const inline = input.filter((f) => !f.ref).map((f) => ({ ...f, sha256: sha256Hex(f.bytes), size: f.bytes.byteLength }));
  const unique = new Map<string, Uint8Array>();
  for (const f of inline) unique.set(f.sha256, f.bytes);
  const keys = [...unique].map(([sha256, bytes]) => ({ sha256, size: bytes.byteLength }));
  const refs = new Map<string, string | null>();
  const referenced = await pinReferences(ctx, scope, input, unique);
  for (const r of referenced) refs.set(r.sha256, r.storageRef);
  let pinned: PinnedContent[];
  try {
    pinned = await pinContents(ctx.db, scope, keys, new Date(ctx.now()));
  } catch (err) {
    await releaseContents(ctx, scope, referenced.map((r) => r.sha256), { purge: false });
    throw upstreamUnavailable("database", err);
  }
  for (const p of pinned) refs.set(p.sha256, p.storageRef);
  const shas = [...referenced.map((r) => r.sha256), ...keys.map((k) => k.sha256)];
  try {
    await mapLimit(
      keys.filter((k) => !refs.get(k.sha256)),
      PUT_CONCURRENCY,
      async (k) => {
        const ref = await ctx.storage.put(contentKey(scope, k.sha256), unique.get(k.sha256)!, "application/octet-stream");
        await markContentStored(ctx.db, scope, k.sha256, ref);
        refs.set(k.sha256, ref);
      },
    );
  } catch (err) {
    await releaseContents(ctx, scope, shas, { purge: true });
    throw upstreamUnavailable("file storage", err);
  }
  return {
    pinned: shas,
    files: input.map((f) => {
      const sha256 = f.ref?.sha256 ?? sha256Hex(f.bytes);
      return { path: f.path, sha256, size: f.ref?.size ?? f.bytes.byteLength, contentType: contentTypeFor(f.path), storageRef: refs.get(sha256)! };
    }),
  };
}

/**
 * Pins the stored contents that files given by reference name (those not also sent inline).
 * A reference the scope has no stored bytes for, or with another size, is unusable: every pin
 * is released and the deploy answers 400 listing the unusable hashes (the envelope's `unusable`).
 */
async function pinReferences(ctx: AppContext, scope: string, input: InputFile[], inline: Map<string, Uint8Array>): Promise<PinnedContent[]> {
  const wanted = new Map<string, number>();
  for (const f of input) if (f.ref && !inline.has(f.ref.sha256)) wanted.set(f.ref.sha256, f.ref.size);
  if (wanted.size === 0) return [];
  let pinned: PinnedContent[];
  try {
    pinned = await pinStoredContents(ctx.db, scope, [...wanted.keys()], new Date(ctx.now()));
  } catch (err) {
    throw upstreamUnavailable("database", err);
  }
  // Contents a client may have uploaded straight to storage: verified now, before any file uses them.
  const unverified = ctx.storage.direct ? [...wanted].filter(([sha, size]) => size > APP_UPLOAD_MAX_BYTES && !pinned.some((p) => p.sha256 === sha)) : [];
  if (unverified.length > 0) {
    try {
      const verified = (await mapLimit(unverified, VERIFY_CONCURRENCY, async ([sha]) => ((await verifyDirectUpload(ctx, scope, sha)) ? [sha] : []))).flat();
      pinned.push(...(await pinStoredContents(ctx.db, scope, verified, new Date(ctx.now()))));
    } catch (err) {
      await releaseContents(ctx, scope, pinned.map((p) => p.sha256), { purge: false });
      throw upstreamUnavailable("file storage", err);
    }
  }
  const found = new Map(pinned.map((p) => [p.sha256, p]));
  const unusable = [...wanted].filter(([sha, size]) => found.get(sha)?.size !== size).map(([sha]) => sha);
  if (unusable.length > 0) {
    await releaseContents(ctx, scope, pinned.map((p) => p.sha256), { purge: false });
    throw unusableReferences(unusable);
  }
  return pinned;
}

/**
 * Checks what a client wrote straight to storage for a content of a scope (docs/uploads.md):
 * reads it back streaming, checks its size and SHA-256 against the content row, and records it
 * as stored. Anything else under that key is deleted. True when the content is stored now.
 */
export async function verifyDirectUpload(ctx: AppContext, scope: string, sha256: string): Promise<boolean> {
  const direct = ctx.storage.direct;
  const row = await findContent(ctx.db, scope, sha256);
  if (!direct || !row) return false;
  if (row.storageRef) return true;
  const found = await direct.stat(contentKey(scope, sha256));
  if (!found) return false;
  const body = found.size === row.size ? await ctx.storage.get(found.ref) : null;
  if (!body || (await digestOf(body, row.size)) !== sha256) {
    await ctx.storage.delete(found.ref);
    return false;
  }
  await markContentStored(ctx.db, scope, sha256, found.ref);
  return true;
}

/** SHA-256 (hex) of a stream, or null as soon as it runs past `size` bytes or ends short of them. */
async function digestOf(body: ReadableStream<Uint8Array>, size: number): Promise<string | null> {
  const hash = createHash("sha256");
  let seen = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    seen += value.byteLength;
    if (seen > size) {
      await reader.cancel();
      return null;
    }
    hash.update(value);
  }
  return seen === size ? hash.digest("hex") : null;
}

/**
 * Removes the bytes of a purged content: its stored object, or, for a row without a ref, what
 * may lie at its key: bytes a client wrote straight to storage, or (file storage, where a delete
 * of nothing costs nothing) bytes of a purge cut off between its two steps.
 */
function removeBytes(ctx: AppContext, scope: string) {
  return async (ref: string | null, row: { sha256: string; size: number }): Promise<void> => {
    if (ref) return ctx.storage.delete(ref);
    if (!ctx.storage.direct || row.size > APP_UPLOAD_MAX_BYTES) await ctx.storage.delete(contentKey(scope, row.sha256));
  };
}

export function unusableReferences(unusable: string[]): ApiError {
  const n = unusable.length;
  return new ApiError("invalid_request", `${n} content reference${n === 1 ? "" : "s"} cannot be used (never uploaded by this caller, expired, or of another size); unusable lists the hashes.`, {
    hint: "POST /deploy/preflight with the files' hashes, PUT the missing contents to the upload targets, then deploy with the same X-Upload-Token.",
    docs: "uploads",
    details: { unusable },
  });
}

/**
 * Unpins contents after a deploy; with `purge` (the deploy failed or was refused) also removes
 * those that no file references. Never throws: a leftover is purged by a later run.
 */
export async function releaseContents(ctx: AppContext, scope: string, shas: string[], opts: { purge: boolean }): Promise<void> {
  try {
    await unpinContents(ctx.db, scope, shas);
    if (opts.purge) await purgeContents(ctx.db, scope, shas, new Date(ctx.now()), removeBytes(ctx, scope));
  } catch (err) {
    console.error("[contents] could not release contents", scope, err);
  }
}

/** Purges the contents that files of a replaced or deleted drop referenced, where now unused. */
export async function purgeUnused(ctx: AppContext, old: OldContent[]): Promise<void> {
  for (const [scope, shas] of groupByScope(old)) {
    await purgeContents(ctx.db, scope, shas, new Date(ctx.now()), removeBytes(ctx, scope));
  }
}
