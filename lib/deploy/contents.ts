import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import type { AppContext } from "../context";
import { ApiError, upstreamUnavailable } from "../errors";
import { sha256Hex } from "../ids";
import { APP_UPLOAD_MAX_BYTES } from "../plans";
import { mapLimit } from "../concurrency";
import type { Storage } from "../storage/types";
import { collectYoungGarbage } from "./garbage";
import { readWhole } from "./read-whole";
import { oneSizePerHash } from "./hashes";
import {
  findContent,
  groupByScope,
  markContentStored,
  markContentsStored,
  pinContents,
  pinStoredContents,
  purgeContents,
  unpinContents,
  type ContentKey,
  type PinnedContent,
} from "../db/contents";
import type { OldContent } from "../db/queries";
import type { InputFile } from "./paths";
import { contentTypeFor } from "../files/content-type";

// Content-addressed bytes. An account's files share one stored object per SHA-256
// (`c/<scope>/<sha256>`); anonymous bytes get a scope of their own (per drop, or per preflight),
// so nothing is ever shared, or revealed, across accounts. A deploy pins the contents it uses
// for its duration, stores only the ones without bytes, and unpins after its rows commit; a
// failed deploy and a replaced or deleted drop purge what no file references any more.

const PUT_CONCURRENCY = 8;
/** Direct uploads read back at once by one deploy. */
const VERIFY_CONCURRENCY = 4;
/** Stored objects of referenced contents whose size is checked at once by one deploy. */
const SIZE_CHECK_CONCURRENCY = 8;
/** Deferred entries (zip) inflated at once: Node's zlib runs them on its thread pool (4 threads). */
const READ_CONCURRENCY = 4;
/**
 * Deferred bytes are read and stored in groups of consecutive files up to this many bytes that
 * their reads allocate (a larger file is a group of its own; an entry stored as is costs
 * nothing, its bytes are a view of the archive), one group at a time: a deploy holds at most
 * two groups of unpacked bytes besides its archive. Each group costs one pin statement (on
 * PGlite, the main thread's: about 1 ms besides its rows), so entries that allocate nothing
 * do not end a group before GROUP_FILES.
 */
const GROUP_BYTES = 2 * 1024 * 1024;
const GROUP_FILES = 32;
/** A deferred file larger than this is never held whole: it is streamed twice (to hash, to store). */
const STREAM_BYTES = 8 * 1024 * 1024;

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

/** One deploy's pins and the stored refs it knows, shared by its inline, referenced and deferred files. */
class ContentBatch {
  readonly pinned = new Set<string>();
  readonly refs = new Map<string, string | null>();
  /** Contents this deploy wrote that are not recorded as stored yet (see `record`). */
  private readonly written: Array<{ sha256: string; storageRef: string; size: number }> = [];

  constructor(
    private readonly ctx: AppContext,
    private readonly scope: string,
  ) {}

  /**
   * Stores one large content by streaming: `chunks` yields its bytes (each call reads them
   * anew), hashed first, then pinned, and streamed to storage only if the scope lacks them.
   */
  async storeLarge(chunks: () => AsyncIterable<Uint8Array>): Promise<string> {
    const hash = createHash("sha256");
    let size = 0;
    for await (const chunk of chunks()) {
      hash.update(chunk);
      size += chunk.byteLength;
    }
    const sha256 = hash.digest("hex");
    if (!this.pinned.has(sha256)) {
      let rows: PinnedContent[];
      try {
        rows = await pinContents(
          this.ctx.db,
          this.scope,
          [{ sha256, size }],
          new Date(this.ctx.now()),
          undefined,
          true,
        );
      } catch (err) {
        throw upstreamUnavailable("database", err);
      }
      this.pinned.add(sha256);
      for (const r of rows) this.refs.set(r.sha256, r.storageRef);
    }
    if (this.refs.get(sha256)) return sha256;
    let storageRef: string;
    try {
      storageRef = await putVerified(this.ctx.storage, contentKey(this.scope, sha256), sha256, chunks());
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw upstreamUnavailable("file storage", err);
    }
    try {
      await markContentsStored(this.ctx.db, this.scope, [{ sha256, storageRef, size }]);
    } catch (err) {
      throw upstreamUnavailable("database", err);
    }
    this.refs.set(sha256, storageRef);
    return sha256;
  }

  /**
   * Pins the contents not pinned yet by this deploy, then stores the bytes of those without any
   * (recorded as stored by `record`, once for the whole deploy).
   */
  async store(items: Map<string, Uint8Array>): Promise<void> {
    const keys = [...items]
      .filter(([sha]) => !this.pinned.has(sha))
      .map(([sha256, bytes]) => ({ sha256, size: bytes.byteLength }));
    let rows: PinnedContent[];
    try {
      rows = await pinContents(this.ctx.db, this.scope, keys, new Date(this.ctx.now()), undefined, true);
    } catch (err) {
      throw upstreamUnavailable("database", err);
    }
    for (const k of keys) this.pinned.add(k.sha256);
    for (const r of rows) this.refs.set(r.sha256, r.storageRef);
    try {
      await mapLimit(
        keys.filter((k) => !this.refs.get(k.sha256)),
        PUT_CONCURRENCY,
        async (k) => {
          const storageRef = await this.ctx.storage.put(
            contentKey(this.scope, k.sha256),
            items.get(k.sha256)!,
            "application/octet-stream",
            k.sha256,
          );
          this.written.push({ sha256: k.sha256, storageRef, size: k.size });
          this.refs.set(k.sha256, storageRef);
        },
      );
    } catch (err) {
      throw upstreamUnavailable("file storage", err);
    }
  }

  /**
   * Records what `store` wrote as stored, in one statement for the whole deploy (one per group
   * cost a zip deploy dozens of statements). Called after a failure too: what did reach storage
   * is recorded, so the purge that follows removes it.
   */
  async record(): Promise<void> {
    const written = this.written.splice(0);
    try {
      await markContentsStored(this.ctx.db, this.scope, written);
    } catch (err) {
      throw upstreamUnavailable("database", err);
    }
  }
}

/**
 * Pins the contents of files in a scope, stores the bytes of those not yet stored, and returns
 * the file references. Deferred bytes (zip entries) are read, verified, hashed and stored group
 * by group, so no deploy holds all its unpacked bytes at once; `onBytes` sees each one's bytes
 * meanwhile (the deploy report). On any failure
 * (storage, database, or an entry that does not verify) the pins are released and what only
 * this deploy stored is purged; storage and database failures are thrown as 503, the input's
 * own errors (invalid_zip) as they are.
 */
export async function storeContents(
  ctx: AppContext,
  scope: string,
  input: InputFile[],
  onBytes?: OnBytes,
): Promise<StoreOutcome> {
  const shaOf = new Map<InputFile, string>();
  const unique = new Map<string, Uint8Array>();
  for (const f of input) {
    if (f.ref || f.source) continue;
    const sha = sha256Hex(f.bytes);
    shaOf.set(f, sha);
    unique.set(sha, f.bytes);
  }
  const referenced = await pinReferences(ctx, scope, input, unique);
  const batch = new ContentBatch(ctx, scope);
  for (const r of referenced) {
    batch.pinned.add(r.sha256);
    batch.refs.set(r.sha256, r.storageRef);
  }
  try {
    await batch.store(unique);
    await storeDeferred(
      batch,
      input.filter((f) => f.source),
      shaOf,
      onBytes,
    );
    await batch.record();
  } catch (err) {
    await batch.record().catch(() => undefined);
    await releaseContents(ctx, scope, [...batch.pinned], { purge: true });
    throw err;
  }
  return {
    pinned: [...batch.pinned],
    files: input.map((f) => {
      const sha256 = f.ref?.sha256 ?? shaOf.get(f)!;
      const size = f.ref?.size ?? f.source?.size ?? f.bytes.byteLength;
      return { path: f.path, sha256, size, contentType: contentTypeFor(f.path), storageRef: batch.refs.get(sha256)! };
    }),
  };
}

/**
 * Stores one content from a stream that yields its bytes (failing at the end if they do not
 * verify), hashing them again on the way: a stream that does not end in `sha256` fails the put.
 */
async function putVerified(
  storage: Storage,
  key: string,
  sha256: string,
  chunks: AsyncIterable<Uint8Array>,
): Promise<string> {
  const checked = async function* () {
    const hash = createHash("sha256");
    for await (const chunk of chunks) {
      hash.update(chunk);
      yield chunk;
    }
    if (hash.digest("hex") !== sha256) throw new Error(`the bytes of ${key} changed between two reads`);
  };
  return storage.putStream(
    key,
    Readable.toWeb(Readable.from(checked())) as ReadableStream<Uint8Array>,
    "application/octet-stream",
  );
}

/** Sees the verified bytes of a deferred file while they are held (the deploy report scans them then). */
export type OnBytes = (file: InputFile, sha256: string, bytes: Uint8Array) => void;

/** Consecutive files whose reads allocate up to GROUP_BYTES (and at most GROUP_FILES files). */
function groups(files: InputFile[]): InputFile[][] {
  const out: InputFile[][] = [];
  let group: InputFile[] = [];
  let bytes = 0;
  for (const f of files) {
    const size = f.source!.allocates;
    if (group.length > 0 && (bytes + size > GROUP_BYTES || group.length >= GROUP_FILES)) {
      out.push(group);
      group = [];
      bytes = 0;
    }
    group.push(f);
    bytes += size;
  }
  if (group.length > 0) out.push(group);
  return out;
}

/**
 * Reads (inflates, verifies, hashes) and stores deferred files group by group: a group's entries
 * are read READ_CONCURRENCY at a time, pinned in one statement and written PUT_CONCURRENCY at
 * a time, while the next group is read (a store's round trips overlap the next inflations, so a
 * deploy holds at most two groups of unpacked bytes); once stored, a group's bytes are freed
 * and its Buffers collected (./garbage). A failure stops at the current group, once the store
 * in flight has settled (what it wrote is then recorded, and purged by the caller).
 */
async function storeDeferred(
  batch: ContentBatch,
  deferred: InputFile[],
  shaOf: Map<InputFile, string>,
  onBytes?: OnBytes,
): Promise<void> {
  for (const f of deferred)
    if (f.source!.size > STREAM_BYTES) shaOf.set(f, await batch.storeLarge(() => f.source!.chunks()));
  let storing: Promise<void> | undefined;
  try {
    for (const group of groups(deferred.filter((f) => f.source!.size <= STREAM_BYTES))) {
      const read: Array<[InputFile, Uint8Array]> = [];
      const items = await mapLimit(group, READ_CONCURRENCY, async (f) => {
        const bytes = await f.source!.read();
        read.push([f, bytes]);
        const sha = sha256Hex(bytes);
        shaOf.set(f, sha);
        onBytes?.(f, sha, bytes);
        return [sha, bytes] as const;
      });
      await storing;
      storing = batch.store(new Map(items)).then(() => {
        // Stored and scanned: the group's inflated bytes are freed now, not when V8 next collects.
        for (const [f, bytes] of read) f.source!.release?.(bytes);
        collectYoungGarbage();
      });
      // Observed here too: it may fail while the next group is read, and is awaited only then.
      storing.catch(() => undefined);
    }
    await storing;
  } catch (err) {
    await storing?.catch(() => undefined);
    throw err;
  }
}

/**
 * Pins the stored contents that files given by reference name (those not also sent inline).
 * A content is its hash and its size: every reference to a hash must name the size of its bytes
 * (two sizes for one hash, or a size other than inline bytes of that hash, are 400), and a
 * reference the scope has no stored bytes for, or whose row or stored object has another size,
 * is unusable: every pin is released and the deploy answers 400 listing the unusable hashes
 * (the envelope's `unusable`).
 */
async function pinReferences(
  ctx: AppContext,
  scope: string,
  input: InputFile[],
  inline: Map<string, Uint8Array>,
): Promise<PinnedContent[]> {
  const sizes = new Map(
    oneSizePerHash(input.flatMap((f): Array<[string, ContentKey]> => (f.ref ? [[f.path, f.ref]] : []))),
  );
  const inlineMismatch = [...sizes]
    .filter(([sha, size]) => inline.has(sha) && inline.get(sha)!.byteLength !== size)
    .map(([sha]) => sha);
  if (inlineMismatch.length > 0) throw unusableReferences(inlineMismatch);
  const wanted = new Map([...sizes].filter(([sha]) => !inline.has(sha)));
  if (wanted.size === 0) return [];
  let pinned: PinnedContent[];
  try {
    pinned = await pinStoredContents(ctx.db, scope, [...wanted.keys()], new Date(ctx.now()));
  } catch (err) {
    throw upstreamUnavailable("database", err);
  }
  try {
    // Contents a client may have uploaded straight to storage: verified now, before any file uses them.
    const unverified = ctx.storage.direct
      ? [...wanted].filter(([sha, size]) => size > APP_UPLOAD_MAX_BYTES && !pinned.some((p) => p.sha256 === sha))
      : [];
    if (unverified.length > 0) {
      const verified = (
        await mapLimit(unverified, VERIFY_CONCURRENCY, async ([sha]) =>
          (await verifyDirectUpload(ctx, scope, sha)) ? [sha] : [],
        )
      ).flat();
      pinned.push(...(await pinStoredContents(ctx.db, scope, verified, new Date(ctx.now()))));
    }
    // The stored objects themselves, before a drop goes live with them: each is the size its row says.
    const sizeOk = await mapLimit(
      pinned,
      SIZE_CHECK_CONCURRENCY,
      async (p) => p.storageRef !== null && (await ctx.storage.size(p.storageRef)) === p.size,
    );
    pinned.forEach((p, i) => {
      if (!sizeOk[i])
        console.error(
          `[contents] stored object of ${scope}/${p.sha256} is not the ${p.size} bytes its row says; refused as a reference`,
        );
    });
    const found = new Map(pinned.filter((_, i) => sizeOk[i]).map((p) => [p.sha256, p]));
    const unusable = [...wanted].filter(([sha, size]) => found.get(sha)?.size !== size).map(([sha]) => sha);
    if (unusable.length > 0) throw unusableReferences(unusable);
  } catch (err) {
    await releaseContents(
      ctx,
      scope,
      pinned.map((p) => p.sha256),
      { purge: false },
    );
    throw err instanceof ApiError ? err : upstreamUnavailable("file storage", err);
  }
  return pinned;
}

/**
 * Checks what a client wrote straight to storage for a content of a scope (docs/uploads.md):
 * reads it back streaming, checks its size and SHA-256 against the content row, and records it
 * as stored. Anything else under that key is deleted. True when the content is stored now.
 * With `keep`, the bytes read are also collected there, as one buffer (a zip by reference is
 * then opened from this one read, not read twice); they are only the content's when this
 * returns true after a read, i.e. when `keep` is not empty.
 */
export async function verifyDirectUpload(
  ctx: AppContext,
  scope: string,
  sha256: string,
  keep?: Uint8Array[],
): Promise<boolean> {
  const direct = ctx.storage.direct;
  const row = await findContent(ctx.db, scope, sha256);
  if (!direct || !row) return false;
  if (row.storageRef) return true;
  const found = await direct.stat(contentKey(scope, sha256));
  if (!found) return false;
  const body = found.size === row.size ? await ctx.storage.get(found.ref) : null;
  const read = body ? await readWhole(body, row.size, keep !== undefined) : null;
  if (read?.bytes) keep!.push(read.bytes);
  if (read?.sha256 !== sha256) {
    keep?.splice(0);
    await ctx.storage.delete(found.ref);
    return false;
  }
  await markContentStored(ctx.db, scope, sha256, found.ref, row.size);
  return true;
}

/**
 * Removes the bytes of a purged content: its stored object, or, for a row without a ref, what
 * may lie at its key, on every store: bytes a client wrote straight to storage, bytes a deploy
 * stored before the database failed to record them (the reliability run's outage), or bytes of
 * a purge cut off between its two steps. (Skipping that delete for small contents on S3 and
 * Blob, to save a request, left such bytes with no row once the row went.) The row is locked
 * meanwhile, so no deploy can store bytes at the key between this delete and the row's.
 */
function removeBytes(ctx: AppContext, scope: string) {
  return async (ref: string | null, row: { sha256: string }): Promise<void> =>
    ctx.storage.delete(ref ?? contentKey(scope, row.sha256));
}

export function unusableReferences(unusable: string[]): ApiError {
  const n = unusable.length;
  return new ApiError(
    "invalid_request",
    `${n} content reference${n === 1 ? "" : "s"} cannot be used (never uploaded by this caller, expired, or of another size); unusable lists the hashes.`,
    {
      hint: "POST /deploy/preflight with the files' hashes, PUT the missing contents to the upload targets, then deploy with the same X-Upload-Token.",
      docs: "uploads",
      details: { unusable },
    },
  );
}

/**
 * Unpins contents after a deploy (with `endHolds`, their holds end in the same statement); with
 * `purge` (the deploy failed or was refused) also removes those that no file references. Never
 * throws: a leftover is purged by a later run.
 */
export async function releaseContents(
  ctx: AppContext,
  scope: string,
  shas: string[],
  opts: { purge: boolean; endHolds?: boolean },
): Promise<void> {
  try {
    await unpinContents(ctx.db, scope, shas, { endHolds: opts.endHolds });
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
