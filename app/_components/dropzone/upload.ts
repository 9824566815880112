import {
  deployByContent,
  deployZipByReference,
  sharedTopFolder,
  zipByReference,
  type UploadProgress,
} from "@/lib/files/upload";
import type { PreflightResponse } from "@/lib/schemas";
import { hashFiles, sha256Of, zipPicked, type LocalFile } from "./pack";
import type { Busy, DeployedFile, PickedFile } from "./phase";

// Uploading: the picked files deployed the way that fits them. A folder or several files deploy
// by content, as the command-line client does (lib/files/upload.ts, docs/uploads.md): hashed,
// preflighted, only the contents the server lacks uploaded (in parallel, straight to storage
// where the server says so), then deployed by reference. A single .html file or a chosen .zip up
// to 4 MB goes as one request, as it is; a larger .zip goes by reference (preflight, upload to its
// target, deploy {"zip": {sha256, size}}), so no request body to the app is over 4 MB.

/** Where a deploy goes: `deployUrl` deploys (POST, any body form), `preflightEndpoint` preflights. */
export interface Endpoints {
  deployUrl: string;
  preflightEndpoint: string;
}

/** A deploy's answer, the deployed paths with their local sizes, and how many were unchanged. */
export interface Deployed {
  data: Record<string, unknown>;
  files: DeployedFile[];
  unchanged?: number;
}

type Step = (phase: Busy) => void;

/** A refused request: the API's error envelope, or storage's own error. */
export class RequestFailed extends Error {
  constructor(
    message: string,
    readonly code?: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

function failure(status: number, text: string): RequestFailed {
  let data: Record<string, unknown> = {};
  try {
    data = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* not JSON */
  }
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  // Storage answers {error: {code, message}} (an upload target straight to Vercel Blob).
  const nested = data.error && typeof data.error === "object" ? (data.error as Record<string, unknown>) : undefined;
  const message = str(data.error) ?? str(nested?.message) ?? `The server answered ${status}.`;
  return new RequestFailed(message, str(data.code) ?? str(nested?.code), str(data.hint));
}

/** POSTs JSON to the app; the parsed answer, or RequestFailed. */
async function postJson<T>(url: string, body: string, headers: Record<string, string> = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });
  } catch {
    throw new RequestFailed("The request failed: the network connection was lost.");
  }
  const text = await res.text();
  if (!res.ok) throw failure(res.status, text);
  return JSON.parse(text) as T;
}

/** Sends a body with XMLHttpRequest (real upload progress); resolves with the answer's text, or RequestFailed. */
function xhrSend(
  method: string,
  url: string,
  headers: Record<string, string>,
  body: Blob,
  onSent: (bytes: number) => void,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, url);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => onSent(e.loaded);
    xhr.onerror = () => reject(new RequestFailed("The upload failed: the network connection was lost."));
    xhr.onload = () =>
      xhr.status >= 200 && xhr.status < 300 ? resolve(xhr.responseText) : reject(failure(xhr.status, xhr.responseText));
    xhr.send(body);
  });
}

/** Sizes of the deployed paths, from the local files (the server strips one shared top folder of a zip). */
function sizesOf(paths: string[], sent: PickedFile[]): DeployedFile[] {
  const local = new Map(sent.map((p) => [p.path, p.file.size]));
  const top = sharedTopFolder(sent.map((p) => p.path));
  return paths.map((path) => ({
    path,
    size:
      local.get(path) ??
      local.get(`${top}${path}`) ??
      (sent.length === 1 && path === "index.html" ? sent[0]?.file.size : undefined),
  }));
}

const deployedPaths = (data: Record<string, unknown>) => (Array.isArray(data.files) ? data.files.map(String) : []);

/** One request with the whole body: a single .html file, a chosen .zip, or the fallback zip. */
async function sendWhole(to: Endpoints, files: PickedFile[], body: Blob, type: string, step: Step): Promise<Deployed> {
  step({ kind: "uploading", sent: 0, total: body.size, files: files.length });
  const text = await xhrSend("POST", to.deployUrl, { "content-type": type }, body, (sent) =>
    step({ kind: "uploading", sent, total: body.size, files: files.length }),
  );
  const data = JSON.parse(text) as Record<string, unknown>;
  return { data, files: sizesOf(deployedPaths(data), files) };
}

/** A chosen .zip over 4 MB: hash it, preflight it, upload it to its target (straight to storage where the server says so), deploy it by reference. */
async function sendZipByReference(to: Endpoints, files: PickedFile[], zipFile: File, step: Step): Promise<Deployed> {
  step({ kind: "hashing", done: 0, files: 1 });
  const zip: LocalFile = { path: zipFile.name, sha256: await sha256Of(zipFile), size: zipFile.size, file: zipFile };
  const data = await deployZipByReference<LocalFile, Record<string, unknown>>(
    zip,
    {
      preflight: (body) => postJson<PreflightResponse>(to.preflightEndpoint, body),
      upload: async (target, f, onSent) =>
        void (await xhrSend(target.method, target.url, target.headers, f.file, onSent)),
      deploy: (body, uploadToken) => {
        step({ kind: "deploying", files: 1 });
        return postJson<Record<string, unknown>>(to.deployUrl, body, { "x-upload-token": uploadToken });
      },
    },
    (sent) => step({ kind: "uploading", sent: Math.min(sent, zip.size), total: zip.size, files: 1 }),
  );
  return { data, files: sizesOf(deployedPaths(data), files) };
}

/** Deploy by content: hash, preflight, upload what is missing, deploy by reference. */
async function sendByContent(to: Endpoints, files: PickedFile[], step: Step): Promise<Deployed> {
  const strip = sharedTopFolder(files.map((f) => f.path));
  const hashed = await hashFiles(files, strip, (done) => step({ kind: "hashing", done, files: files.length }));
  const show = (p: UploadProgress) =>
    step(
      p.doneFiles === p.totalFiles
        ? { kind: "deploying", files: files.length }
        : { kind: "uploading", sent: p.sentBytes, total: p.totalBytes, files: p.totalFiles, done: p.doneFiles },
    );
  const outcome = await deployByContent<LocalFile, Record<string, unknown>>(
    hashed,
    {
      preflight: (body) => postJson<PreflightResponse>(to.preflightEndpoint, body),
      // The target is sent as it is: the app's PUT, or straight to storage.
      upload: async (target, file, onSent) =>
        void (await xhrSend(target.method, target.url, target.headers, file.file, onSent)),
      deploy: (body, uploadToken) =>
        postJson<Record<string, unknown>>(to.deployUrl, body, { "x-upload-token": uploadToken }),
      // Small missing contents travel inline in the deploy body (lib/files/upload.ts).
      read: async (f) => new Uint8Array(await f.file.arrayBuffer()),
    },
    show,
  );
  const sizes = new Map(hashed.map((f) => [f.path, f.size]));
  const paths = Array.isArray(outcome.result.files) ? outcome.result.files.map(String) : hashed.map((f) => f.path);
  return {
    data: outcome.result,
    files: paths.map((path) => ({ path, size: sizes.get(path) })),
    unchanged: outcome.unchanged,
  };
}

/** Deploys the picked files the way that fits them; `step` is told each phase. */
export async function deployPicked(files: PickedFile[], to: Endpoints, step: Step): Promise<Deployed> {
  const only = files.length === 1 ? files[0] : undefined;
  if (
    only &&
    /\.zip$/i.test(only.file.name) &&
    zipByReference(only.file.size) &&
    typeof crypto !== "undefined" &&
    crypto.subtle
  )
    return sendZipByReference(to, files, only.file, step);
  if (only && /\.zip$/i.test(only.file.name)) return sendWhole(to, files, only.file, "application/zip", step);
  if (only && /\.html?$/i.test(only.file.name)) return sendWhole(to, files, only.file, "text/html", step);
  if (typeof crypto !== "undefined" && crypto.subtle) return sendByContent(to, files, step);
  // No Web Crypto (a page served over plain http from another host than localhost): one zip.
  step({ kind: "zipping", files: files.length });
  return sendWhole(to, files, await zipPicked(files), "application/zip", step);
}
