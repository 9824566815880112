"use client";

import { zipSync, type Zippable } from "fflate";
import { useCallback, useId, useRef, useState } from "react";

// Deploy by drag and drop: a folder or several files are zipped in the browser (fflate), a zip
// or a single HTML file goes as it is. The upload shows real progress (XHR upload events).
// Anonymous deploys keep their claim token in localStorage so the drop can be claimed after login.

export const PENDING_CLAIMS_KEY = "dropsite:pending-claims";

export interface PendingClaim {
  slug: string;
  url: string;
  claim_token: string;
  at: string;
}

/** The pending claims stored in this browser; anything unreadable counts as none. */
export function readPendingClaims(stored: string | null): PendingClaim[] {
  try {
    const parsed: unknown = JSON.parse(stored ?? "[]");
    return Array.isArray(parsed) ? (parsed as PendingClaim[]) : [];
  } catch {
    return [];
  }
}

interface PickedFile {
  path: string;
  file: File;
}

type Phase =
  | { kind: "idle" }
  | { kind: "zipping" }
  | { kind: "uploading"; sent: number; total: number }
  | { kind: "done"; url: string; slug: string; claimToken?: string; files: number }
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

function isIgnored(path: string): boolean {
  return path.split("/").some((seg) => seg === ".git" || seg === "node_modules" || seg === ".DS_Store");
}

export function DropZone({ endpoint = "/deploy", name }: { endpoint?: string; name?: string }) {
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const [over, setOver] = useState(false);
  const [copied, setCopied] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const labelId = useId();

  const upload = useCallback(
    async (picked: PickedFile[]) => {
      const files = picked.filter((p) => !isIgnored(p.path));
      if (files.length === 0) return;
      let body: Blob;
      let type: string;
      const only = files.length === 1 ? files[0]! : undefined;
      if (only && /\.zip$/i.test(only.file.name)) {
        body = only.file;
        type = "application/zip";
      } else if (only && /\.html?$/i.test(only.file.name)) {
        body = only.file;
        type = "text/html";
      } else {
        setPhase({ kind: "zipping" });
        const tree: Zippable = {};
        for (const f of files) tree[f.path] = new Uint8Array(await f.file.arrayBuffer());
        const zipped = zipSync(tree, { level: 6 });
        body = new Blob([zipped], { type: "application/zip" });
        type = "application/zip";
      }
      setPhase({ kind: "uploading", sent: 0, total: body.size });
      const url = name ? `${endpoint}?name=${encodeURIComponent(name)}` : endpoint;
      const xhr = new XMLHttpRequest();
      xhr.open("POST", url);
      xhr.setRequestHeader("content-type", type);
      xhr.upload.onprogress = (e) => setPhase({ kind: "uploading", sent: e.loaded, total: e.lengthComputable ? e.total : body.size });
      xhr.onerror = () => setPhase({ kind: "error", error: "The upload failed: the network connection was lost." });
      xhr.onload = () => {
        let data: Record<string, unknown> = {};
        try {
          data = JSON.parse(xhr.responseText) as Record<string, unknown>;
        } catch {
          /* not JSON */
        }
        if (xhr.status !== 200) {
          setPhase({ kind: "error", error: typeof data.error === "string" ? data.error : `The server answered ${xhr.status}.`, code: data.code as string | undefined, hint: data.hint as string | undefined });
          return;
        }
        const claimToken = typeof data.claim_token === "string" ? data.claim_token : undefined;
        if (claimToken) {
          const pending = readPendingClaims(localStorage.getItem(PENDING_CLAIMS_KEY));
          pending.push({ slug: String(data.slug), url: String(data.url), claim_token: claimToken, at: new Date().toISOString() });
          localStorage.setItem(PENDING_CLAIMS_KEY, JSON.stringify(pending.slice(-50)));
        }
        setPhase({ kind: "done", url: String(data.url), slug: String(data.slug), claimToken, files: Array.isArray(data.files) ? data.files.length : 0 });
      };
      xhr.send(body);
    },
    [endpoint, name],
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
      await upload(out);
    },
    [upload],
  );

  const onPick = (list: FileList | null) => {
    if (!list) return;
    void upload(Array.from(list).map((file) => ({ path: file.webkitRelativePath || file.name, file })));
  };

  const busy = phase.kind === "zipping" || phase.kind === "uploading";
  const percent = phase.kind === "uploading" && phase.total > 0 ? Math.round((phase.sent / phase.total) * 100) : 0;

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
          {name ? <>Drop files to deploy into <strong>{name}</strong></> : "Drop a folder, a .zip or an .html file here"}
        </p>
        <p className="muted">or</p>
        <div className="row">
          <button type="button" className="button" onClick={() => fileInput.current?.click()} disabled={busy}>
            Choose files
          </button>
          <button type="button" className="button secondary" onClick={() => folderInput.current?.click()} disabled={busy}>
            Choose a folder
          </button>
        </div>
        <input ref={fileInput} type="file" multiple hidden aria-label="Files to deploy" data-testid="file-input" onChange={(e) => onPick(e.target.files)} />
        <input
          ref={folderInput}
          type="file"
          hidden
          aria-label="Folder to deploy"
          {...({ webkitdirectory: "", directory: "" } as Record<string, string>)}
          onChange={(e) => onPick(e.target.files)}
        />
      </div>
      <div className="dropzone-status" aria-live="polite" data-testid="deploy-status">
        {phase.kind === "zipping" && <p>Zipping…</p>}
        {phase.kind === "uploading" && (
          <div>
            <progress max={100} value={percent} aria-label="Upload progress" />
            <span className="muted"> {percent}%</span>
          </div>
        )}
        {phase.kind === "done" && (
          <div className="result">
            <p>
              Live: <a href={phase.url} data-testid="deployed-url">{phase.url}</a>{" "}
              <button
                type="button"
                className="button small"
                onClick={() => {
                  void Promise.resolve(navigator.clipboard?.writeText(phase.url))
                    .catch(() => undefined)
                    .then(() => setCopied(true));
                }}
              >
                {copied ? "Copied" : "Copy"}
              </button>
            </p>
            <p className="muted">{phase.files} file(s).{phase.claimToken ? " Log in to keep it: this browser remembers the claim token." : ""}</p>
          </div>
        )}
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
