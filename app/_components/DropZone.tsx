"use client";

import { zipForDeploy } from "@/lib/files/pack";
import QRCode from "qrcode";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { describeSkip, ignoreFilesAmong, selectFiles, type Selection, type Skipped } from "@/lib/files/ignore";
import {
  deployByContent,
  deployZipByReference,
  sharedTopFolder,
  zipByReference,
  type HashedFile,
  type UploadProgress,
} from "@/lib/files/upload";
import type { PreflightResponse } from "@/lib/schemas";
import { CopyButton } from "./CodeBlock";
import { DeployReportList, reportOf } from "./DeployReport";
import { bytes, dateTime, relative } from "./format";

// Deploy by drag and drop. A folder or several files deploy by content, as the command-line
// client does (lib/files/upload.ts, docs/uploads.md): the browser hashes each file (Web Crypto
// SHA-256), preflights, uploads only the contents the server lacks (in parallel, straight to
// storage where the server says so) with one progress display of bytes and files, then deploys
// by reference and says how many files were unchanged. A single .html file or a chosen .zip up
// to 4 MB goes as one request, as it is; a larger .zip goes by reference (preflight, upload to
// its target, deploy {"zip": {sha256, size}}), so no request body to the app is over 4 MB. What a folder deploy leaves out follows the one rule in
// lib/files/ignore.ts; when anything is left out, the person sees it before anything is sent,
// and the result lists it again beside what was published.
// Anonymous deploys keep their claim token in localStorage, and the person can copy or
// download it to claim the drop from anywhere.

export const PENDING_CLAIMS_KEY = "dropsite:pending-claims";

export interface PendingClaim {
  slug: string;
  url: string;
  claim_token: string;
  at: string;
  expires_at?: string | null;
}

interface PickedFile {
  path: string;
  file: File;
}

interface LocalFile extends HashedFile {
  file: File;
}

interface DeployedFile {
  path: string;
  size?: number;
}

/** A picked file the deploy left out, with the reason in words (describeSkip). */
interface LeftOutFile {
  path: string;
  why: string;
}

type Phase =
  | { kind: "idle" }
  | { kind: "review"; picked: PickedFile[]; ignoreFiles: Record<string, string>; includeDotfiles: boolean }
  | { kind: "zipping"; files: number }
  | { kind: "hashing"; done: number; files: number }
  | { kind: "uploading"; sent: number; total: number; files: number; done?: number }
  | { kind: "deploying"; files: number }
  | {
      kind: "done";
      url: string;
      slug: string;
      claimToken?: string;
      expiresAt: string | null;
      files: DeployedFile[];
      at: number;
      unchanged?: number;
      report?: ReturnType<typeof reportOf>;
      leftOut: LeftOutFile[];
    }
  | { kind: "error"; error: string; code?: string; hint?: string };

async function readEntry(entry: FileSystemEntry, prefix: string, out: PickedFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    out.push({ path: `${prefix}${entry.name}`, file });
    return;
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    for (const child of batch) await readEntry(child, `${prefix}${entry.name}/`, out);
  }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

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

/** A refused request: the API's error envelope, or storage's own error. */
class RequestFailed extends Error {
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

/** SHA-256 (hex) of a file with Web Crypto. */
async function sha256Of(file: File): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await file.arrayBuffer());
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

function saveClaim(claim: PendingClaim) {
  try {
    const pending = JSON.parse(localStorage.getItem(PENDING_CLAIMS_KEY) ?? "[]") as PendingClaim[];
    pending.push(claim);
    localStorage.setItem(PENDING_CLAIMS_KEY, JSON.stringify(pending.slice(-50)));
    // The storage event reaches other tabs only; tell this one too.
    window.dispatchEvent(new StorageEvent("storage", { key: PENDING_CLAIMS_KEY }));
  } catch {
    /* storage full or disabled: the person still has copy and download */
  }
}

/**
 * `endpoint` deploys (POST, any body form); `preflightEndpoint` preflights. The dashboard passes
 * its own cookie-authenticated pair (/dashboard/upload, /dashboard/preflight).
 */
export function DropZone({
  endpoint = "/deploy",
  preflightEndpoint = "/deploy/preflight",
  name,
}: {
  endpoint?: string;
  preflightEndpoint?: string;
  name?: string;
}) {
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const [over, setOver] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const labelId = useId();
  const deployUrl = name ? `${endpoint}?name=${encodeURIComponent(name)}` : endpoint;
  // What the deploy in progress left out, for its result.
  const leftOut = useRef<LeftOutFile[]>([]);

  const finish = useCallback((data: Record<string, unknown>, files: DeployedFile[], unchanged?: number) => {
    const claimToken = typeof data.claim_token === "string" ? data.claim_token : undefined;
    const expiresAt = typeof data.expires_at === "string" ? data.expires_at : null;
    if (claimToken)
      saveClaim({
        slug: String(data.slug),
        url: String(data.url),
        claim_token: claimToken,
        at: new Date().toISOString(),
        expires_at: expiresAt,
      });
    setPhase({
      kind: "done",
      url: String(data.url),
      slug: String(data.slug),
      claimToken,
      expiresAt,
      files,
      at: Date.now(),
      unchanged,
      report: reportOf(data.report),
      leftOut: leftOut.current,
    });
  }, []);

  /** One request with the whole body: a single .html file, a chosen .zip, or the fallback zip. */
  const sendWhole = useCallback(
    async (files: PickedFile[], body: Blob, type: string) => {
      setPhase({ kind: "uploading", sent: 0, total: body.size, files: files.length });
      const text = await xhrSend("POST", deployUrl, { "content-type": type }, body, (sent) =>
        setPhase({ kind: "uploading", sent, total: body.size, files: files.length }),
      );
      const data = JSON.parse(text) as Record<string, unknown>;
      finish(data, sizesOf(Array.isArray(data.files) ? data.files.map(String) : [], files));
    },
    [deployUrl, finish],
  );

  /** A chosen .zip over 4 MB: hash it, preflight it, upload it to its target (straight to storage where the server says so), deploy it by reference. */
  const sendZipByReference = useCallback(
    async (files: PickedFile[], zipFile: File) => {
      setPhase({ kind: "hashing", done: 0, files: 1 });
      const zip: LocalFile = { path: zipFile.name, sha256: await sha256Of(zipFile), size: zipFile.size, file: zipFile };
      const data = await deployZipByReference<LocalFile, Record<string, unknown>>(
        zip,
        {
          preflight: (body) => postJson<PreflightResponse>(preflightEndpoint, body),
          upload: async (target, f, onSent) =>
            void (await xhrSend(target.method, target.url, target.headers, f.file, onSent)),
          deploy: (body, uploadToken) => {
            setPhase({ kind: "deploying", files: 1 });
            return postJson<Record<string, unknown>>(deployUrl, body, { "x-upload-token": uploadToken });
          },
        },
        (sent) => setPhase({ kind: "uploading", sent: Math.min(sent, zip.size), total: zip.size, files: 1 }),
      );
      finish(data, sizesOf(Array.isArray(data.files) ? data.files.map(String) : [], files));
    },
    [deployUrl, preflightEndpoint, finish],
  );

  /** Deploy by content: hash, preflight, upload what is missing, deploy by reference. */
  const sendByContent = useCallback(
    async (files: PickedFile[]) => {
      const strip = sharedTopFolder(files.map((f) => f.path));
      const hashed: LocalFile[] = [];
      for (const f of files) {
        setPhase({ kind: "hashing", done: hashed.length, files: files.length });
        hashed.push({
          path: f.path.slice(strip.length),
          sha256: await sha256Of(f.file),
          size: f.file.size,
          file: f.file,
        });
      }
      const show = (p: UploadProgress) =>
        setPhase(
          p.doneFiles === p.totalFiles
            ? { kind: "deploying", files: files.length }
            : { kind: "uploading", sent: p.sentBytes, total: p.totalBytes, files: p.totalFiles, done: p.doneFiles },
        );
      const outcome = await deployByContent<LocalFile, Record<string, unknown>>(
        hashed,
        {
          preflight: (body) => postJson<PreflightResponse>(preflightEndpoint, body),
          // The target is sent as it is: the app's PUT, or straight to storage.
          upload: async (target, file, onSent) =>
            void (await xhrSend(target.method, target.url, target.headers, file.file, onSent)),
          deploy: (body, uploadToken) =>
            postJson<Record<string, unknown>>(deployUrl, body, { "x-upload-token": uploadToken }),
          // Small missing contents travel inline in the deploy body (lib/files/upload.ts).
          read: async (f) => new Uint8Array(await f.file.arrayBuffer()),
        },
        show,
      );
      const sizes = new Map(hashed.map((f) => [f.path, f.size]));
      const paths = Array.isArray(outcome.result.files) ? outcome.result.files.map(String) : hashed.map((f) => f.path);
      finish(
        outcome.result,
        paths.map((path) => ({ path, size: sizes.get(path) })),
        outcome.unchanged,
      );
    },
    [deployUrl, preflightEndpoint, finish],
  );

  const send = useCallback(
    async (files: PickedFile[], skipped: Skipped<PickedFile>[] = []) => {
      leftOut.current = skipped.map((s) => ({ path: s.file.path, why: describeSkip(s) }));
      const only = files.length === 1 ? files[0]! : undefined;
      try {
        if (
          only &&
          /\.zip$/i.test(only.file.name) &&
          zipByReference(only.file.size) &&
          typeof crypto !== "undefined" &&
          crypto.subtle
        )
          await sendZipByReference(files, only.file);
        else if (only && /\.zip$/i.test(only.file.name)) await sendWhole(files, only.file, "application/zip");
        else if (only && /\.html?$/i.test(only.file.name)) await sendWhole(files, only.file, "text/html");
        else if (typeof crypto !== "undefined" && crypto.subtle) await sendByContent(files);
        else {
          // No Web Crypto (a page served over plain http from another host than localhost): one
          // zip, with entries stored uncompressed where the server's decompression-ratio rule
          // needs it (zipForDeploy), so that rule never refuses it.
          setPhase({ kind: "zipping", files: files.length });
          const tree: Record<string, Uint8Array> = {};
          for (const f of files) tree[f.path] = new Uint8Array(await f.file.arrayBuffer());
          await sendWhole(files, new Blob([zipForDeploy(tree)], { type: "application/zip" }), "application/zip");
        }
      } catch (err) {
        if (err instanceof RequestFailed)
          setPhase({ kind: "error", error: err.message, code: err.code, hint: err.hint });
        else setPhase({ kind: "error", error: err instanceof Error ? err.message : String(err) });
      }
    },
    [sendWhole, sendByContent, sendZipByReference],
  );

  const pick = useCallback(
    async (picked: PickedFile[]) => {
      if (picked.length === 0) return;
      const found = ignoreFilesAmong(picked.map((p) => p.path));
      const ignoreFiles: Record<string, string> = {};
      for (const path of found) ignoreFiles[path] = await picked.find((p) => p.path === path)!.file.text();
      const selection = selectFiles(picked, ignoreFiles);
      // Nothing left out: send at once. Otherwise the person sees what stays behind first.
      if (selection.skipped.length === 0) await send(selection.kept);
      else setPhase({ kind: "review", picked, ignoreFiles, includeDotfiles: false });
    },
    [send],
  );

  const onDrop = useCallback(
    async (e: React.DragEvent) => {
      e.preventDefault();
      setOver(false);
      const out: PickedFile[] = [];
      const entries = Array.from(e.dataTransfer.items)
        .map((i) => i.webkitGetAsEntry?.())
        .filter((x): x is FileSystemEntry => !!x);
      if (entries.length > 0) {
        for (const entry of entries) await readEntry(entry, "", out);
      } else {
        for (const file of Array.from(e.dataTransfer.files)) out.push({ path: file.name, file });
      }
      await pick(out);
    },
    [pick],
  );

  const onPick = (input: HTMLInputElement) => {
    const list = input.files;
    if (!list) return;
    void pick(Array.from(list).map((file) => ({ path: file.webkitRelativePath || file.name, file })));
    // Picking the same folder again must fire change again.
    input.value = "";
  };

  const busy =
    phase.kind === "zipping" || phase.kind === "hashing" || phase.kind === "uploading" || phase.kind === "deploying";
  const percent = phase.kind === "uploading" && phase.total > 0 ? Math.round((phase.sent / phase.total) * 100) : 0;
  const resultLink = useRef<HTMLAnchorElement>(null);
  // The pick buttons are disabled while sending, which drops keyboard focus on the page body:
  // then focus goes to the new URL, the next thing to act on.
  useEffect(() => {
    if (phase.kind === "done" && (document.activeElement === null || document.activeElement === document.body))
      resultLink.current?.focus();
  }, [phase]);

  return (
    <section className="dropzone-wrap" aria-labelledby={labelId}>
      <div
        className={`dropzone${over ? " over" : ""}`}
        data-testid="dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => void onDrop(e)}
      >
        <p id={labelId} className="dropzone-title">
          {name ? (
            <>
              Drop files to deploy into <strong>{name}</strong>
            </>
          ) : (
            <>
              <span className="desktop-only">Drop a folder, a .zip or an .html file here</span>
              <span className="phone-only">Publish an .html file, a .zip or several files</span>
            </>
          )}
        </p>
        <p className="muted desktop-only">or</p>
        <div className="row">
          <button type="button" className="button" onClick={() => fileInput.current?.click()} disabled={busy}>
            Choose files
          </button>
          <button
            type="button"
            className="button secondary folder-only"
            onClick={() => folderInput.current?.click()}
            disabled={busy}
          >
            Choose a folder
          </button>
        </div>
        <input
          ref={fileInput}
          type="file"
          multiple
          hidden
          aria-label="Files to deploy"
          data-testid="file-input"
          onChange={(e) => onPick(e.currentTarget)}
        />
        <input
          ref={folderInput}
          type="file"
          hidden
          aria-label="Folder to deploy"
          data-testid="folder-input"
          {...({ webkitdirectory: "", directory: "" } as Record<string, string>)}
          onChange={(e) => onPick(e.currentTarget)}
        />
      </div>
      <p className="visually-hidden" role="status" data-testid="deploy-announcement">
        {announcement(phase, percent)}
      </p>
      <div className="dropzone-status" data-testid="deploy-status">
        {phase.kind === "review" && (
          <Review
            phase={phase}
            onToggle={(includeDotfiles) => setPhase({ ...phase, includeDotfiles })}
            onCancel={() => setPhase({ kind: "idle" })}
            onSend={(files, skipped) => void send(files, skipped)}
          />
        )}
        {phase.kind === "zipping" && (
          <>
            <span className="busy" aria-hidden="true" />
            <p>Zipping {plural(phase.files, "file")}…</p>
          </>
        )}
        {phase.kind === "hashing" && (
          <>
            <span className="busy" aria-hidden="true" />
            <p data-testid="hash-progress">
              Checking {plural(phase.files, "file")}… ({phase.done.toLocaleString("en-US")} done)
            </p>
          </>
        )}
        {phase.kind === "uploading" && (
          <div>
            <progress max={100} value={percent} aria-label="Upload progress" />{" "}
            <span className="muted" data-testid="upload-progress">
              {phase.done === undefined
                ? plural(phase.files, "file")
                : `${phase.done.toLocaleString("en-US")} of ${plural(phase.files, "file")}`}
              : {bytes(phase.sent)} of {bytes(phase.total)} sent ({percent}%)
            </span>
          </div>
        )}
        {phase.kind === "deploying" && (
          <>
            <span className="busy" aria-hidden="true" />
            <p data-testid="deploying">Publishing {plural(phase.files, "file")}…</p>
          </>
        )}
        {phase.kind === "done" && <Deployed phase={phase} link={resultLink} />}
        {phase.kind === "error" && (
          <div className="error" role="alert">
            <p>
              {phase.error} {phase.code && <code>{phase.code}</code>}
            </p>
            {phase.hint && <p>{phase.hint}</p>}
          </div>
        )}
      </div>
    </section>
  );
}

function Review({
  phase,
  onToggle,
  onCancel,
  onSend,
}: {
  phase: Extract<Phase, { kind: "review" }>;
  onToggle: (includeDotfiles: boolean) => void;
  onCancel: () => void;
  onSend: (files: PickedFile[], skipped: Skipped<PickedFile>[]) => void;
}) {
  const sel: Selection<PickedFile> = selectFiles(phase.picked, phase.ignoreFiles, {
    includeDotfiles: phase.includeDotfiles,
  });
  const size = sel.kept.reduce((n, f) => n + f.file.size, 0);
  const hasDotfiles = phase.picked.some((p) => p.path.split("/").some((s) => s.startsWith(".")));
  return (
    <div className="card review" data-testid="deploy-review">
      <p>
        <strong>
          {plural(sel.kept.length, "file")} ({bytes(size)}) will be published.
        </strong>{" "}
        {plural(sel.skipped.length, "file")} left out, as the command-line client would:
      </p>
      <ul className="file-list" data-testid="skipped-files">
        {sel.skipped.slice(0, 50).map((s) => (
          <li key={s.file.path}>
            <code>{s.file.path}</code> <span className="muted">{describeSkip(s)}</span>
          </li>
        ))}
        {sel.skipped.length > 50 && <li className="muted">and {plural(sel.skipped.length - 50, "more file")}</li>}
      </ul>
      {hasDotfiles && (
        <p>
          <label className="check">
            <input type="checkbox" checked={phase.includeDotfiles} onChange={(e) => onToggle(e.target.checked)} />{" "}
            Publish dotfiles too (such as .env: check they hold no secrets)
          </label>
        </p>
      )}
      <div className="row" style={{ justifyContent: "flex-start" }}>
        <button
          type="button"
          className="button"
          disabled={sel.kept.length === 0}
          onClick={() => onSend(sel.kept, sel.skipped)}
        >
          Publish {plural(sel.kept.length, "file")}
        </button>
        <button type="button" className="button secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/**
 * What a screen reader hears as a deploy goes: one short line per step (upload progress in
 * quarters, not every percent), then the URL. Errors are alerts of their own.
 */
function announcement(phase: Phase, percent: number): string {
  switch (phase.kind) {
    case "review":
      return "Check the files left out, then publish.";
    case "zipping":
      return `Zipping ${plural(phase.files, "file")}…`;
    case "hashing":
      return `Checking ${plural(phase.files, "file")}…`;
    case "uploading":
      return `Uploading ${plural(phase.files, "file")}: ${Math.floor(percent / 25) * 25}% sent.`;
    case "deploying":
      return `Publishing ${plural(phase.files, "file")}…`;
    case "done":
      return `Published at ${phase.url}`;
    default:
      return "";
  }
}

function Deployed({
  phase,
  link,
}: {
  phase: Extract<Phase, { kind: "done" }>;
  link: React.RefObject<HTMLAnchorElement | null>;
}) {
  const [qr, setQr] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    QRCode.toDataURL(phase.url, { margin: 1, width: 176, errorCorrectionLevel: "M" })
      .then((data) => live && setQr(data))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [phase.url]);
  const total = phase.files.reduce((n, f) => n + (f.size ?? 0), 0);
  const known = phase.files.every((f) => f.size !== undefined);
  const downloadToken = () => {
    const text = JSON.stringify(
      {
        url: phase.url,
        slug: phase.slug,
        claim_token: phase.claimToken,
        expires_at: phase.expiresAt,
        how_to_claim:
          "Log in to the dashboard and paste this file's text under 'Claim an anonymous drop', or POST {slug, claim_token} to /claim with your API key.",
      },
      null,
      2,
    );
    const href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    const a = document.createElement("a");
    a.href = href;
    a.download = `dropsite-claim-${phase.slug}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(href), 1000);
  };
  return (
    <div className="result card" data-testid="deploy-result">
      <div className="result-main">
        <div>
          <p className="result-url">
            <a href={phase.url} data-testid="deployed-url" target="_blank" rel="noopener" ref={link}>
              {phase.url}
            </a>
          </p>
          <p className="row" style={{ justifyContent: "flex-start" }}>
            <CopyButton text={phase.url} label="Copy the URL" className="button small" testId="copy-url" />
            <a className="button small secondary" href={phase.url} target="_blank" rel="noopener">
              Open
            </a>
          </p>
          <p data-testid="deployed-expiry">
            {phase.expiresAt === null ? (
              "Never expires."
            ) : (
              <>
                Online until <time dateTime={phase.expiresAt}>{dateTime(phase.expiresAt)}</time> (
                {relative(phase.expiresAt, phase.at)}).
              </>
            )}
          </p>
        </div>
        <figure className="qr">
          {qr ? (
            // A data: URL drawn in this browser: nothing for next/image to optimise.
            // eslint-disable-next-line @next/next/no-img-element
            <img src={qr} width={176} height={176} alt={`QR code for ${phase.url}`} data-testid="qr-code" />
          ) : (
            <span className="qr-placeholder" />
          )}
          <figcaption className="muted">Open it on a phone</figcaption>
        </figure>
      </div>
      {phase.unchanged !== undefined && (
        <p className="muted" data-testid="deployed-unchanged">
          {phase.unchanged.toLocaleString("en-US")} of {plural(phase.files.length, "file")} unchanged (not uploaded
          again).
        </p>
      )}
      <details open={phase.files.length <= 12} data-testid="deployed-files">
        <summary>
          {plural(phase.files.length, "file")}
          {known && total > 0 ? `, ${bytes(total)}` : ""}
        </summary>
        <ul className="file-list">
          {phase.files.map((f) => (
            <li key={f.path}>
              <a href={new URL(f.path, phase.url).href} target="_blank" rel="noopener">
                {f.path}
              </a>{" "}
              {f.size !== undefined && <span className="muted">{bytes(f.size)}</span>}
            </li>
          ))}
        </ul>
      </details>
      {phase.leftOut.length > 0 && (
        <details open={phase.leftOut.length <= 12} data-testid="deployed-left-out">
          <summary>{plural(phase.leftOut.length, "file")} left out</summary>
          <ul className="file-list">
            {phase.leftOut.slice(0, 50).map((f) => (
              <li key={f.path}>
                <code>{f.path}</code> <span className="muted">{f.why}</span>
              </li>
            ))}
            {phase.leftOut.length > 50 && (
              <li className="muted">and {plural(phase.leftOut.length - 50, "more file")}</li>
            )}
          </ul>
        </details>
      )}
      <DeployReportList report={phase.report} />
      {phase.claimToken && (
        <div className="claim-box" data-testid="claim-token-box">
          <p>
            <strong>Keep this claim token.</strong> This drop belongs to nobody yet. Whoever holds the token can move it
            into their account (log in, then <em>Claim an anonymous drop</em> on the dashboard) and keep it online
            longer. It is shown only now; this browser remembers it, but save it to claim from anywhere else.
          </p>
          <p className="secret" data-testid="claim-token">
            {phase.claimToken}
          </p>
          <p className="row" style={{ justifyContent: "flex-start" }}>
            <CopyButton text={phase.claimToken} label="Copy the claim token" className="button small" />
            <button
              type="button"
              className="button small secondary"
              onClick={downloadToken}
              data-testid="download-token"
            >
              Download as a file
            </button>
          </p>
        </div>
      )}
    </div>
  );
}
