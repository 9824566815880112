import { Inflate } from "fflate";
import { normalizePath } from "./paths";
import { ApiError } from "../errors";
import type { InputFile } from "./paths";

// A zip reader that trusts nothing in the archive: it walks the central directory, refuses
// encrypted, ZIP64, symlink and unknown-method entries, enforces the entry and size budgets
// before inflating, stops inflating the moment an entry passes its declared size, and checks
// every CRC. Inflation itself is fflate's.

export interface ZipLimits {
  maxFiles: number;
  /** Total unpacked bytes allowed (the plan's decompressionRatio times the archive's size). */
  maxTotalBytes: number;
  maxFileBytes: number;
  /** Error to raise when maxFiles is passed. */
  tooManyFiles: (count: number) => ApiError;
  /** Error to raise when an unpacked size budget is passed. */
  tooLarge: (message: string) => ApiError;
}

const invalid = (message: string) =>
  new ApiError("invalid_zip", message, {
    hint: "Send a standard .zip archive (deflate or stored entries, no encryption), e.g. made with `zip -r site.zip .`.",
    docs: "zip",
  });

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = (CRC_TABLE[(c ^ data[i]!) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
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

function readEntries(buf: Uint8Array): Entry[] {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.length < 22) throw invalid("The body is not a zip archive (too short).");
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw invalid("The body is not a zip archive, or it is truncated (no end-of-central-directory record).");
  const count = view.getUint16(eocd + 10, true);
  const cdSize = view.getUint32(eocd + 12, true);
  const cdOffset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || cdOffset === 0xffffffff || cdSize === 0xffffffff) throw invalid("ZIP64 archives are not supported.");
  if (cdOffset + cdSize > eocd) throw invalid("The zip archive is truncated or corrupt (central directory out of range).");
  const entries: Entry[] = [];
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > eocd || view.getUint32(p, true) !== 0x02014b50) throw invalid("The zip archive is corrupt (bad central directory entry).");
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

function inflateEntry(buf: Uint8Array, e: Entry, view: DataView): Uint8Array {
  const lp = e.localOffset;
  if (lp + 30 > buf.length || view.getUint32(lp, true) !== 0x04034b50) throw invalid(`The zip archive is corrupt (bad local header for ${e.name}).`);
  const start = lp + 30 + view.getUint16(lp + 26, true) + view.getUint16(lp + 28, true);
  const end = start + e.compressedSize;
  if (end > buf.length) throw invalid(`The zip archive is truncated (${e.name} runs past the end).`);
  const data = buf.subarray(start, end);
  let out: Uint8Array;
  if (e.method === 0) {
    if (e.compressedSize !== e.size) throw invalid(`The zip archive is corrupt (${e.name} sizes disagree).`);
    out = data;
  } else {
    out = new Uint8Array(e.size);
    let written = 0;
    let overflow = false;
    const inflater = new Inflate((chunk) => {
      if (written + chunk.length > e.size) {
        overflow = true;
        throw invalid(`The zip archive is corrupt (${e.name} unpacks past its declared size).`);
      }
      out.set(chunk, written);
      written += chunk.length;
    });
    try {
      const step = 1 << 16;
      for (let i = 0; i < data.length; i += step) inflater.push(data.subarray(i, Math.min(i + step, data.length)), i + step >= data.length);
      if (data.length === 0) inflater.push(new Uint8Array(0), true);
    } catch (err) {
      if (overflow && err instanceof ApiError) throw err;
      throw invalid(`The zip archive is corrupt (${e.name} does not inflate).`);
    }
    if (written !== e.size) throw invalid(`The zip archive is corrupt (${e.name} is shorter than declared).`);
  }
  if (crc32(out) !== e.crc) throw invalid(`The zip archive is corrupt (checksum mismatch in ${e.name}).`);
  return out;
}

/** Unpacks a zip body into files (paths not yet normalised), a single root folder stripped. */
export function unzipBody(buf: Uint8Array, limits: ZipLimits): InputFile[] {
  const entries = readEntries(buf);
  const wanted: Entry[] = [];
  for (const e of entries) {
    if (e.isSymlink) throw invalid(`The zip archive contains a symbolic link (${e.name}); symlinks are not allowed.`);
    if (e.isDir || isJunk(e.name)) continue;
    if (e.encrypted) throw invalid(`The zip archive contains an encrypted entry (${e.name}).`);
    if (e.method !== 0 && e.method !== 8) throw invalid(`The zip entry ${e.name} uses an unsupported compression method (${e.method}).`);
    wanted.push(e);
  }
  if (wanted.length === 0) throw invalid("The zip archive contains no files.");
  if (wanted.length > limits.maxFiles) throw limits.tooManyFiles(wanted.length);
  let declared = 0;
  for (const e of wanted) {
    if (e.size > limits.maxFileBytes) throw limits.tooLarge(`The file ${e.name} unpacks to ${e.size} bytes, over the per-file limit of ${limits.maxFileBytes}.`);
    declared += e.size;
  }
  if (declared > limits.maxTotalBytes) {
    throw limits.tooLarge(`The archive unpacks to ${declared} bytes, more than the ${limits.maxTotalBytes} bytes allowed for an archive of its size.`);
  }
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  // Every name is checked before the root folder is stripped: a root of "..", "C:" or "/" is
  // refused, never re-rooted.
  const names = wanted.map((e) => normalizePath(e.name));
  const files = wanted.map((e, i) => ({ path: names[i]!, bytes: inflateEntry(buf, e, view) }));
  return stripSingleRoot(files);
}

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
    return { path: p.slice(p.indexOf("/") + 1), bytes: f.bytes };
  });
}
