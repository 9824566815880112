import { createInflateRaw, crc32 as zlibCrc32, inflateRaw } from "node:zlib";
import { normalizePath } from "./paths";
import { ApiError } from "../errors";
import type { InputFile } from "./paths";

// A zip reader that trusts nothing in the archive: it walks the central directory, refuses
// encrypted, ZIP64, symlink and unknown-method entries, enforces the entry and size budgets
// and checks every local header before any entry is inflated. Entries are inflated one at a
// time, when their contents are stored (InputFile.source): never past their declared size,
// and each is checked against its CRC before its bytes are used. Inflation and CRC are Node's
// zlib (native, off the event loop). The bytes this module allocates (inflated entries, ranges
// copied across the body's chunks) are freed as soon as they are used (`source.release`).

export interface ZipLimits {
  maxFiles: number;
  /** Total unpacked bytes allowed (the plan's decompressionRatio times the archive's size). */
  maxTotalBytes: number;
  maxFileBytes: number;
  /** Error to raise when maxFiles is passed. */
  tooManyFiles: (count: number) => ApiError;
  /** Error to raise when an entry is over the per-file limit. */
  tooLarge: (message: string) => ApiError;
  /** Error to raise when the archive unpacks past maxTotalBytes (the decompression ratio). */
  overRatio: (message: string) => ApiError;
}

const invalid = (message: string) =>
  new ApiError("invalid_zip", message, {
    hint: "Send a standard .zip archive (deflate or stored entries, no encryption), e.g. made with `zip -r site.zip .`.",
    docs: "zip",
  });

/** The CRC-32 of zip entries (zlib's). */
export function crc32(data: Uint8Array): number {
  return zlibCrc32(data) >>> 0;
}

interface Entry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  isDir: boolean;
  isSymlink: boolean;
  encrypted: boolean;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const latin1 = new TextDecoder("latin1");

/** Ranges of an archive that are copies (they spanned chunks), not views of its chunks. */
const copies = new WeakSet<Uint8Array>();
/** Bytes of entries that are this module's own (inflated, or copied out of the archive): `release` frees them. */
const owned = new WeakSet<Uint8Array>();

/**
 * A body as the chunks it arrived in, never joined: a range within one chunk is a view of it,
 * a range across chunks a copy of just that range.
 */
class Archive {
  readonly length: number;
  private readonly starts: number[] = [];

  constructor(private readonly chunks: readonly Uint8Array[]) {
    let n = 0;
    for (const c of chunks) {
      this.starts.push(n);
      n += c.byteLength;
    }
    this.length = n;
  }

  /** The index of the chunk that holds byte `at`. */
  private chunkAt(at: number): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Whether a range lies within one chunk (its slice is then a view, not a copy). */
  inOneChunk(start: number, end: number): boolean {
    const i = this.chunkAt(start);
    return end - this.starts[i]! <= this.chunks[i]!.byteLength;
  }

  slice(start: number, end: number): Uint8Array {
    if (end <= start) return new Uint8Array(0);
    const lo = this.chunkAt(start);
    const first = this.chunks[lo]!;
    const at = start - this.starts[lo]!;
    if (end - this.starts[lo]! <= first.byteLength) return first.subarray(at, end - this.starts[lo]!);
    const out = new Uint8Array(end - start);
    copies.add(out);
    let written = 0;
    for (let i = lo; written < out.length; i++) {
      const c = this.chunks[i]!;
      const from = i === lo ? at : 0;
      const take = Math.min(c.byteLength - from, out.length - written);
      out.set(c.subarray(from, from + take), written);
      written += take;
    }
    return out;
  }
}

const viewOf = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);

function readEntries(archive: Archive): Entry[] {
  if (archive.length < 22) throw invalid("The body is not a zip archive (too short).");
  const tailStart = Math.max(0, archive.length - 22 - 0xffff);
  const tail = viewOf(archive.slice(tailStart, archive.length));
  let eocdAt = -1;
  for (let i = tail.byteLength - 22; i >= 0; i--) {
    if (tail.getUint32(i, true) === 0x06054b50) {
      eocdAt = i;
      break;
    }
  }
  if (eocdAt < 0)
    throw invalid("The body is not a zip archive, or it is truncated (no end-of-central-directory record).");
  const count = tail.getUint16(eocdAt + 10, true);
  const cdSize = tail.getUint32(eocdAt + 12, true);
  const cdOffset = tail.getUint32(eocdAt + 16, true);
  if (count === 0xffff || cdOffset === 0xffffffff || cdSize === 0xffffffff)
    throw invalid("ZIP64 archives are not supported.");
  const eocdAbs = tailStart + eocdAt;
  if (cdOffset + cdSize > eocdAbs)
    throw invalid("The zip archive is truncated or corrupt (central directory out of range).");
  // The central directory (and whatever lies between it and the end record), as one range.
  const buf = archive.slice(cdOffset, eocdAbs);
  const view = viewOf(buf);
  const eocd = buf.byteLength;
  const entries: Entry[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > eocd || view.getUint32(p, true) !== 0x02014b50)
      throw invalid("The zip archive is corrupt (bad central directory entry).");
    const madeBy = view.getUint16(p + 4, true);
    const flags = view.getUint16(p + 8, true);
    const method = view.getUint16(p + 10, true);
    const crc = view.getUint32(p + 16, true);
    const compressedSize = view.getUint32(p + 20, true);
    const size = view.getUint32(p + 24, true);
    const nameLen = view.getUint16(p + 28, true);
    const extraLen = view.getUint16(p + 30, true);
    const commentLen = view.getUint16(p + 32, true);
    const external = view.getUint32(p + 38, true);
    const localOffset = view.getUint32(p + 42, true);
    if (p + 46 + nameLen > eocd) throw invalid("The zip archive is corrupt (entry name out of range).");
    const rawName = buf.subarray(p + 46, p + 46 + nameLen);
    let name: string;
    try {
      name = utf8.decode(rawName);
    } catch {
      name = latin1.decode(rawName);
    }
    const unixMode = madeBy >> 8 === 3 ? external >>> 16 : 0;
    const fileType = unixMode & 0o170000;
    entries.push({
      name,
      method,
      crc,
      compressedSize,
      size,
      localOffset,
      isDir: name.endsWith("/") || fileType === 0o040000 || (madeBy >> 8 === 0 && (external & 0x10) !== 0),
      isSymlink: fileType === 0o120000,
      encrypted: (flags & 1) !== 0,
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

// Metadata that archivers add and nobody means to publish.
function isJunk(name: string): boolean {
  return name.startsWith("__MACOSX/") || name === ".DS_Store" || name.endsWith("/.DS_Store");
}

/**
 * Where an entry's stored data lies in the archive, checked before anything is inflated: the
 * function that gives the data (a view, or a copy when it spans chunks of the body), and the
 * bytes a read of the entry allocates (none for a view of an entry stored as is).
 */
function entryData(archive: Archive, e: Entry): { data: () => Uint8Array; allocates: number } {
  const lp = e.localOffset;
  if (lp + 30 > archive.length) throw invalid(`The zip archive is corrupt (bad local header for ${e.name}).`);
  const header = viewOf(archive.slice(lp, lp + 30));
  if (header.getUint32(0, true) !== 0x04034b50)
    throw invalid(`The zip archive is corrupt (bad local header for ${e.name}).`);
  const start = lp + 30 + header.getUint16(26, true) + header.getUint16(28, true);
  const end = start + e.compressedSize;
  if (end > archive.length) throw invalid(`The zip archive is truncated (${e.name} runs past the end).`);
  if (e.method === 0 && e.compressedSize !== e.size)
    throw invalid(`The zip archive is corrupt (${e.name} sizes disagree).`);
  const allocates = e.method === 0 && archive.inOneChunk(start, end) ? 0 : e.size;
  return { data: () => archive.slice(start, end), allocates };
}

/**
 * Inflates raw deflate data, refusing output past `max` bytes (zlib stops there). `own`: the
 * output has an ArrayBuffer of its own, never a slice of Node's shared pool (zlib allocates
 * its output chunks with `Buffer.allocUnsafe`, pooled under half of `Buffer.poolSize`: 64 KB
 * on Node 24, 8 KB before).
 */
function inflateAtMost(data: Uint8Array, max: number): Promise<{ out: Uint8Array; own: boolean }> {
  return new Promise((resolve, reject) => {
    // One output chunk for most entries (zlib's default is 16 KB, each a round trip to JS).
    const chunkSize = Math.min(Math.max(max + 1, 16 * 1024, Buffer.poolSize), 1024 * 1024);
    inflateRaw(data, { maxOutputLength: Math.max(1, max), chunkSize }, (err, out) =>
      err ? reject(err) : resolve({ out, own: chunkSize >= Buffer.poolSize >>> 1 }),
    );
  });
}

/** The verified bytes of one entry: inflated (stored entries are a view of the archive), sized and CRC-checked. */
async function readEntry(data: Uint8Array, e: Entry): Promise<Uint8Array> {
  let out: Uint8Array;
  let own = copies.has(data);
  if (e.method === 0) {
    out = data;
  } else {
    try {
      ({ out, own } = await inflateAtMost(data, e.size));
    } catch (err) {
      if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE")
        throw invalid(`The zip archive is corrupt (${e.name} unpacks past its declared size).`);
      throw invalid(`The zip archive is corrupt (${e.name} does not inflate).`);
    } finally {
      // zlib is done with its input: a copied range goes now (most entries span two chunks of a body).
      if (copies.has(data)) freeBuffer(data);
    }
    if (out.byteLength > e.size)
      throw invalid(`The zip archive is corrupt (${e.name} unpacks past its declared size).`);
    if (out.byteLength !== e.size) throw invalid(`The zip archive is corrupt (${e.name} is shorter than declared).`);
  }
  if (crc32(out) !== e.crc) throw invalid(`The zip archive is corrupt (checksum mismatch in ${e.name}).`);
  if (own) owned.add(out);
  return out;
}

/**
 * Frees the memory of bytes this module made (inflated, or a range copied out of the archive)
 * at once, by detaching their ArrayBuffer: V8 drops its backing store. A Buffer's memory
 * otherwise waits for V8's next full collection, which a deploy's few heap allocations do not
 * bring before about the archive's size has piled up. Only for bytes with an ArrayBuffer of
 * their own (a new Uint8Array, or zlib's output made unpooled by `inflateAtMost`), never a slice
 * of Node's shared pool or a view of the archive's chunks.
 */
function freeBuffer(bytes: Uint8Array): void {
  const buffer = bytes.buffer as ArrayBuffer & { transfer?: (length: number) => ArrayBuffer };
  if (bytes.byteLength > 0 && typeof buffer.transfer === "function") buffer.transfer(0);
}

const CHUNK = 1024 * 1024;

/**
 * The verified bytes of one entry as a stream of chunks (for entries too large to hold): the
 * size is checked as they come, the CRC at the end, and a failure ends the stream with the
 * error, so whatever consumes it (a hash, a storage put) fails too.
 */
async function* entryChunks(data: Uint8Array, e: Entry): AsyncGenerator<Uint8Array> {
  let total = 0;
  let crc = 0;
  let source: AsyncIterable<Uint8Array>;
  if (e.method === 0) {
    source = (async function* () {
      for (let i = 0; i < data.byteLength; i += CHUNK) yield data.subarray(i, i + CHUNK);
    })();
  } else {
    const inflater = createInflateRaw({ chunkSize: 256 * 1024 });
    inflater.end(data);
    source = inflater;
  }
  try {
    for await (const chunk of source) {
      total += chunk.byteLength;
      if (total > e.size) throw invalid(`The zip archive is corrupt (${e.name} unpacks past its declared size).`);
      crc = zlibCrc32(chunk, crc);
      yield chunk;
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw invalid(`The zip archive is corrupt (${e.name} does not inflate).`);
  }
  if (total !== e.size) throw invalid(`The zip archive is corrupt (${e.name} is shorter than declared).`);
  if (crc >>> 0 !== e.crc) throw invalid(`The zip archive is corrupt (checksum mismatch in ${e.name}).`);
}

/**
 * Opens a zip body: every entry's name, type, size and place is checked here, and the files
 * come back (paths not yet normalised, a single root folder stripped) with their bytes
 * deferred: `source.read()` inflates and verifies one entry. The archive is held, never its
 * unpacked whole.
 */
export function openZip(body: Uint8Array | readonly Uint8Array[], limits: ZipLimits): InputFile[] {
  const archive = new Archive(body instanceof Uint8Array ? [body] : body);
  const entries = readEntries(archive);
  const wanted: Entry[] = [];
  for (const e of entries) {
    if (e.isSymlink) throw invalid(`The zip archive contains a symbolic link (${e.name}); symlinks are not allowed.`);
    if (e.isDir || isJunk(e.name)) continue;
    if (e.encrypted) throw invalid(`The zip archive contains an encrypted entry (${e.name}).`);
    if (e.method !== 0 && e.method !== 8)
      throw invalid(`The zip entry ${e.name} uses an unsupported compression method (${e.method}).`);
    wanted.push(e);
  }
  if (wanted.length === 0) throw invalid("The zip archive contains no files.");
  if (wanted.length > limits.maxFiles) throw limits.tooManyFiles(wanted.length);
  let declared = 0;
  for (const e of wanted) {
    if (e.size > limits.maxFileBytes)
      throw limits.tooLarge(
        `The file ${e.name} unpacks to ${e.size} bytes, over the per-file limit of ${limits.maxFileBytes}.`,
      );
    declared += e.size;
  }
  if (declared > limits.maxTotalBytes) {
    throw limits.overRatio(
      `The archive unpacks to ${declared} bytes, more than the ${limits.maxTotalBytes} bytes allowed for an archive of its size.`,
    );
  }
  // Every name is checked before the root folder is stripped: a root of "..", "C:" or "/" is
  // refused, never re-rooted.
  const files = wanted.map((e): InputFile => {
    const path = normalizePath(e.name);
    const { data, allocates } = entryData(archive, e);
    return {
      path,
      bytes: EMPTY,
      source: {
        size: e.size,
        allocates,
        read: () => readEntry(data(), e),
        chunks: () => entryChunks(data(), e),
        // Never a view of the archive's chunks (other entries still read them), only bytes of our own.
        release: (bytes) => {
          if (owned.delete(bytes)) freeBuffer(bytes);
        },
      },
    };
  });
  return stripSingleRoot(files);
}

const EMPTY = new Uint8Array(0);

/** When every file sits inside one top-level folder, that folder is removed from the paths. */
export function stripSingleRoot(files: InputFile[]): InputFile[] {
  const firsts = new Set<string>();
  for (const f of files) {
    const i = f.path.replace(/^\.\//, "").indexOf("/");
    if (i <= 0) return files;
    firsts.add(f.path.replace(/^\.\//, "").slice(0, i));
    if (firsts.size > 1) return files;
  }
  return files.map((f) => {
    const p = f.path.replace(/^\.\//, "");
    return { ...f, path: p.slice(p.indexOf("/") + 1) };
  });
}
