import type { PreflightResponse } from "../schemas";
import { mapLimit } from "../storage/types";

// The client side of the upload protocol (docs/uploads.md), shared by the command-line client
// and the browser page: given the files' hashes, preflight, upload only the missing contents
// (bounded concurrency, one progress count of bytes and files), then deploy by reference. The
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
  /** Send one file's bytes to its target; `onSent` takes the bytes of this file sent so far. Throws on an error answer. */
  upload(target: UploadTarget, file: F, onSent: (bytes: number) => void): Promise<void>;
  /** POST the deploy body (JSON, by reference) with the preflight's upload token. */
  deploy(body: string, uploadToken: string): Promise<R>;
}

export interface ContentDeploy<R> {
  result: R;
  /** Files whose content the server already had (not uploaded). */
  unchanged: number;
  /** Contents uploaded. */
  uploaded: number;
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

/** Preflight, upload what is missing, deploy by reference. */
export async function deployByContent<F extends HashedFile, R>(
  files: F[],
  transport: UploadTransport<F, R>,
  onProgress: (p: UploadProgress) => void = () => undefined,
): Promise<ContentDeploy<R>> {
  const body = referenceBody(files);
  const pre = await transport.preflight(body);
  const bySha = new Map(files.map((f) => [f.sha256, f]));
  const targets = pre.uploads.map((target) => {
    const file = bySha.get(target.sha256);
    if (!file) throw new Error(`The server asked for a content this deploy does not have (${target.sha256}).`);
    return { target, file };
  });
  const progress: UploadProgress = { sentBytes: 0, totalBytes: targets.reduce((n, t) => n + t.file.size, 0), doneFiles: 0, totalFiles: targets.length };
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
  const missing = new Set(pre.missing);
  return { result, unchanged: files.filter((f) => !missing.has(f.sha256)).length, uploaded: targets.length };
}
