import { APP_UPLOAD_MAX_BYTES, limits } from "../plans";
import type { PreflightResponse } from "../schemas";
import { mapLimit } from "../concurrency";

// The client side of the upload protocol (docs/uploads.md), shared by the command-line client
// and the browser page: given the files' hashes, preflight, send the small missing contents
// inline in the deploy body (up to a byte budget), upload only the others (bounded concurrency,
// one progress count of bytes and files), then deploy the rest by reference. The
// transport (node:http in the CLI, fetch and XMLHttpRequest in the browser) is the caller's; an
// upload target is sent as it is, whether it points at the app or straight at storage.

export interface HashedFile {
  /** The path the file is deployed under. */
  path: string;
  sha256: string;
  size: number;
}

type UploadTarget = PreflightResponse["uploads"][number];

export interface UploadProgress {
  sentBytes: number;
  totalBytes: number;
  doneFiles: number;
  totalFiles: number;
}

export interface UploadTransport<F extends HashedFile, R> {
  /** POST the preflight body (JSON) and return the answer; throws on an error answer. */
  preflight(body: string): Promise<PreflightResponse>;
  /**
   * The file's bytes, read when it may be sent inline in the deploy body. Without it every
   * missing content is uploaded to its target (the browser page, for now: docs/uploads.md).
   */
  read?(file: F): Promise<Uint8Array>;
  /** Send one file's bytes to its target; `onSent` takes the bytes of this file sent so far. Throws on an error answer. */
  upload(target: UploadTarget, file: F, onSent: (bytes: number) => void): Promise<void>;
  /** POST the deploy body (JSON: references and inline contents) with the preflight's upload token. */
  deploy(body: string, uploadToken: string): Promise<R>;
}

export interface ContentDeploy<R> {
  result: R;
  /** Files whose content the server already had (not uploaded). */
  unchanged: number;
  /** Contents sent: uploaded to a target or inline in the deploy body. */
  uploaded: number;
  /** Of those, the contents sent inline in the deploy body. */
  inline: number;
}

/** Uploads at once, per client. */
export const UPLOAD_CONCURRENCY = 4;

/**
 * The shared top folder of a set of paths ("site/"), or "": as the server does for a zip, a
 * single folder holding everything is not part of the deployed paths.
 */
export function sharedTopFolder(paths: string[]): string {
  const tops = new Set(paths.map((p) => p.split("/")[0]));
  const [top] = [...tops];
  return tops.size === 1 && top !== undefined && paths.every((p) => p.includes("/")) ? `${top}/` : "";
}

/** The deploy-by-reference body: {files: {path: {sha256, size}}}. */
export function referenceBody(files: HashedFile[]): string {
  return JSON.stringify({ files: Object.fromEntries(files.map((f) => [f.path, { sha256: f.sha256, size: f.size }])) });
}

/**
 * The most bytes of a deploy body with inline contents: under the app's request limit and every
 * plan's JSON body cap, with a margin for the request's other bytes.
 */
export const INLINE_BODY_BUDGET =
  Math.min(APP_UPLOAD_MAX_BYTES, ...Object.values(limits).map((l) => l.bodyBytes)) - 64 * 1024;

type FilesValue = string | { encoding: "base64"; content: string } | { sha256: string; size: number };

const utf8 = new TextEncoder();
const jsonBytes = (value: unknown) => utf8.encode(JSON.stringify(value)).byteLength;

function base64Of(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/**
 * The shortest files-map value carrying these bytes and its serialized length: the text itself
 * when the bytes are UTF-8 (a byte-order mark kept) and its JSON escaping is not longer, else base64.
 */
function inlineValue(bytes: Uint8Array): { value: FilesValue; bytes: number } {
  const b64 = { encoding: "base64" as const, content: base64Of(bytes) };
  const b64Bytes = jsonBytes(b64);
  let text: string | undefined;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    text = undefined;
  }
  if (text !== undefined) {
    const textBytes = jsonBytes(text);
    if (textBytes <= b64Bytes) return { value: text, bytes: textBytes };
  }
  return { value: b64, bytes: b64Bytes };
}

/**
 * Picks the missing contents sent inline, smallest first, while the serialized deploy body stays
 * within `budget` bytes; one path per content (other paths with it stay references, which the
 * server resolves to the inline bytes). Returns the inline values by path and the body.
 */
async function inlineContents<F extends HashedFile>(
  files: F[],
  missing: Set<string>,
  read: (file: F) => Promise<Uint8Array>,
  budget: number,
) {
  const refs: Record<string, FilesValue> = Object.fromEntries(
    files.map((f) => [f.path, { sha256: f.sha256, size: f.size }]),
  );
  let size = jsonBytes({ files: refs });
  const first = new Map<string, F>();
  for (const f of files) if (missing.has(f.sha256) && !first.has(f.sha256)) first.set(f.sha256, f);
  const inline = new Set<string>();
  for (const f of [...first.values()].sort((a, b) => a.size - b.size)) {
    const ref = jsonBytes(refs[f.path]);
    // An inline value is at least its bytes and two quotes long: nothing larger fits either.
    if (size + f.size + 2 - ref > budget) break;
    const { value, bytes } = inlineValue(await read(f));
    const grows = bytes - ref;
    if (size + grows > budget) continue;
    refs[f.path] = value;
    size += grows;
    inline.add(f.sha256);
  }
  return { inline, body: JSON.stringify({ files: refs }) };
}

/**
 * Preflight, send what is missing (small contents inline in the deploy body, the others to their
 * upload targets, largest first), deploy. Progress counts the bytes and files of both; inline
 * ones once the deploy request has been sent and answered.
 */
export async function deployByContent<F extends HashedFile, R>(
  files: F[],
  transport: UploadTransport<F, R>,
  onProgress: (p: UploadProgress) => void = () => undefined,
): Promise<ContentDeploy<R>> {
  const pre = await transport.preflight(referenceBody(files));
  const bySha = new Map(files.map((f) => [f.sha256, f]));
  for (const target of pre.uploads) {
    if (!bySha.has(target.sha256))
      throw new Error(`The server asked for a content this deploy does not have (${target.sha256}).`);
  }
  const missing = new Set(pre.missing);
  const read = transport.read?.bind(transport);
  const { inline, body } = read
    ? await inlineContents(files, missing, read, INLINE_BODY_BUDGET)
    : { inline: new Set<string>(), body: referenceBody(files) };
  const targets = pre.uploads
    .filter((target) => !inline.has(target.sha256))
    .map((target) => ({ target, file: bySha.get(target.sha256)! }))
    .sort((a, b) => b.file.size - a.file.size);
  const inlineBytes = [...inline].reduce((n, sha) => n + bySha.get(sha)!.size, 0);
  const progress: UploadProgress = {
    sentBytes: 0,
    totalBytes: targets.reduce((n, t) => n + t.file.size, inlineBytes),
    doneFiles: 0,
    totalFiles: targets.length + inline.size,
  };
  const report = () => onProgress({ ...progress, sentBytes: Math.min(progress.sentBytes, progress.totalBytes) });
  report();
  await mapLimit(targets, UPLOAD_CONCURRENCY, async ({ target, file }) => {
    let last = 0;
    await transport.upload(target, file, (sent) => {
      progress.sentBytes += Math.max(0, sent - last);
      last = Math.max(last, sent);
      report();
    });
    // Whatever the transport reported, the whole file is sent once its target accepted it.
    progress.sentBytes += file.size - last;
    progress.doneFiles++;
    report();
  });
  const result = await transport.deploy(body, pre.upload_token);
  // The inline contents are sent once the deploy request is (its answer came back).
  if (inline.size > 0) {
    progress.sentBytes += inlineBytes;
    progress.doneFiles += inline.size;
    report();
  }
  return {
    result,
    unchanged: files.filter((f) => !missing.has(f.sha256)).length,
    uploaded: targets.length + inline.size,
    inline: inline.size,
  };
}

/**
 * Whether a zip goes by reference (`{"zip": {sha256, size}}`: preflight, upload to the target,
 * deploy) rather than as the deploy body: when it is larger than a function's request limit.
 * The target then points straight at storage where the store takes direct uploads.
 */
export function zipByReference(size: number): boolean {
  return size > APP_UPLOAD_MAX_BYTES;
}

/**
 * Deploys one zip archive by reference: preflight `{"zip": {sha256, size}}`, upload the archive
 * to its target unless the caller's scope already has it, then deploy `{"zip": {sha256, size}}`
 * with the upload token. The zip is the one "file" of the transport.
 */
export async function deployZipByReference<F extends HashedFile, R>(
  zip: F,
  transport: UploadTransport<F, R>,
  onSent: (bytes: number) => void = () => undefined,
): Promise<R> {
  const ref = JSON.stringify({ zip: { sha256: zip.sha256, size: zip.size } });
  const pre = await transport.preflight(ref);
  for (const target of pre.uploads) {
    if (target.sha256 !== zip.sha256)
      throw new Error(`The server asked for a content this deploy does not have (${target.sha256}).`);
    await transport.upload(target, zip, onSent);
  }
  onSent(zip.size);
  return transport.deploy(ref, pre.upload_token);
}
