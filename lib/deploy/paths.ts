import { ApiError } from "../errors";
import { INPUT_LIMITS, LONE_SURROGATE, utf8Bytes } from "../input";

// Path rules shared by every body form: normalised, relative POSIX paths, within the byte
// limits of lib/input.ts (a segment is a file or folder name in storage).

const MAX_PATH = INPUT_LIMITS.pathBytes;
const MAX_SEGMENT = INPUT_LIMITS.segmentBytes;
// Segments that reach object prototypes when used as keys.
const PROTO_KEYS = new Set(["__proto__", "prototype", "constructor"]);
// A UTF-16 surrogate without its partner (possible in JSON strings) has no UTF-8 form, so two
// such paths would collapse into one stored name: refused.

function bad(message: string, hint?: string): ApiError {
  return new ApiError("invalid_request", message, {
    hint: hint ?? "Paths are relative POSIX paths such as index.html or assets/app.js.",
    docs: "paths",
  });
}

/** Validates and normalises one path; throws invalid_request naming the problem. */
export function normalizePath(raw: string): string {
  const shown = JSON.stringify(raw.slice(0, 200));
  if (raw.length === 0) throw bad("Empty file path.");
  if (raw.length > MAX_PATH || utf8Bytes(raw) > MAX_PATH)
    throw bad(`File path longer than ${MAX_PATH} bytes: ${shown}.`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(raw)) throw bad(`File path contains a control character: ${shown}.`);
  if (LONE_SURROGATE.test(raw)) throw bad(`File path is not valid Unicode (lone surrogate): ${shown}.`);
  if (raw.includes("\\"))
    throw bad(`File path contains a backslash: ${shown}.`, "Use forward slashes (/) between folders.");
  if (raw.startsWith("/") || /^[a-zA-Z]:/.test(raw)) throw bad(`Absolute file path: ${shown}.`);
  // One spelling per name: NFC, the form browsers send. NFD and NFC spellings of one name are
  // the same file (and duplicates, if both are given).
  const segments = raw.normalize("NFC").split("/");
  const out: string[] = [];
  for (const seg of segments) {
    if (seg === "") throw bad(`File path has an empty segment: ${shown}.`);
    if (seg === ".") continue;
    if (seg === "..") throw bad(`File path climbs out of the drop with "..": ${shown}.`);
    if (utf8Bytes(seg) > MAX_SEGMENT) throw bad(`File path segment longer than ${MAX_SEGMENT} bytes: ${shown}.`);
    if (PROTO_KEYS.has(seg)) throw bad(`File path uses a reserved name (${seg}): ${shown}.`);
    out.push(seg);
  }
  if (out.length === 0) throw bad(`File path names no file: ${shown}.`);
  // "./C:/x" must not become the drive-rooted "C:/x" once "./" is dropped.
  if (/^[a-zA-Z]:/.test(out[0]!)) throw bad(`Absolute file path: ${shown}.`);
  return out.join("/");
}

/** A file given by the hash and size of content uploaded before (deploy by reference). */
export interface ContentRef {
  sha256: string;
  size: number;
}

/**
 * Bytes read only when they are stored (a zip entry): `read` inflates and verifies them whole,
 * `chunks` as a stream (which fails at the end if they do not verify).
 */
export interface DeferredBytes {
  size: number;
  /**
   * Bytes a `read()` allocates: the size, or 0 when what it returns is a view of bytes held
   * anyway (a zip entry stored as is, within one chunk of the archive).
   */
  allocates: number;
  read(): Promise<Uint8Array>;
  chunks(): AsyncIterable<Uint8Array>;
  /**
   * Frees bytes that `read()` returned, once nothing uses them any more (they are stored and
   * scanned): their memory goes back at once rather than at V8's next full collection.
   */
  release?(bytes: Uint8Array): void;
}

export interface InputFile {
  path: string;
  /** The bytes; empty when the file is given by `ref` or `source`. */
  bytes: Uint8Array;
  ref?: ContentRef;
  source?: DeferredBytes;
}

/**
 * Normalises every path and refuses duplicates after normalisation, and a path that is also a
 * folder of another path in the same request (`a` and `a/b`): a file tree cannot hold both.
 */
export function normalizeFiles(files: readonly InputFile[]): InputFile[] {
  const seen = new Set<string>();
  const out = files.map((f) => {
    const path = normalizePath(f.path);
    if (seen.has(path)) throw bad(`Duplicate file path after normalisation: ${JSON.stringify(path)}.`);
    seen.add(path);
    return { ...f, path };
  });
  for (const { path } of out) {
    for (let i = path.indexOf("/"); i > 0; i = path.indexOf("/", i + 1)) {
      const folder = path.slice(0, i);
      if (seen.has(folder))
        throw bad(
          `${JSON.stringify(folder)} is both a file and a folder of ${JSON.stringify(path)}.`,
          "Rename the file or the folder.",
        );
    }
  }
  return out;
}
