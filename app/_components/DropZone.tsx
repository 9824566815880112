"use client";

import { useCallback, useEffect, useId, useRef, useState } from "react";
import { describeSkip, type Skipped } from "@/lib/files/ignore";
import { reportOf } from "./DeployReport";
import { bytes } from "./format";
import { saveClaim } from "./dropzone/claims";
import { Deployed } from "./dropzone/Deployed";
import {
  announcement,
  plural,
  type DeployedFile,
  type LeftOutFile,
  type Phase,
  type PickedFile,
} from "./dropzone/phase";
import { pickedFromDrop, pickedFromInput, selectPicked } from "./dropzone/pick";
import { Review } from "./dropzone/Review";
import { deployPicked, RequestFailed } from "./dropzone/upload";

// Deploy by drag and drop. The parts live in ./dropzone/, one per job: picking the files
// (pick.ts), hashing or zipping them (pack.ts), sending them the way that fits (upload.ts: a
// folder by content as the command-line client does, a single .html or small .zip as one request,
// a larger .zip by reference), and the result (Deployed.tsx). What a folder deploy leaves out
// follows the one rule in lib/files/ignore.ts; when anything is left out, the person sees it
// before anything is sent (Review.tsx), and the result lists it again beside what was published.
// Anonymous deploys keep their claim token in localStorage (claims.ts), and the person can copy
// or download it to claim the drop from anywhere.

export { PENDING_CLAIMS_KEY, type PendingClaim } from "./dropzone/claims";

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

  const send = useCallback(
    async (files: PickedFile[], skipped: Skipped<PickedFile>[] = []) => {
      leftOut.current = skipped.map((s) => ({ path: s.file.path, why: describeSkip(s) }));
      try {
        const deployed = await deployPicked(files, { deployUrl, preflightEndpoint }, setPhase);
        finish(deployed.data, deployed.files, deployed.unchanged);
      } catch (err) {
        if (err instanceof RequestFailed)
          setPhase({ kind: "error", error: err.message, code: err.code, hint: err.hint });
        else setPhase({ kind: "error", error: err instanceof Error ? err.message : String(err) });
      }
    },
    [deployUrl, preflightEndpoint, finish],
  );

  const pick = useCallback(
    async (picked: PickedFile[]) => {
      if (picked.length === 0) return;
      const { ignoreFiles, selection } = await selectPicked(picked);
      // Nothing left out: send at once. Otherwise the person sees what stays behind first.
      if (selection.skipped.length === 0) await send(selection.kept);
      else setPhase({ kind: "review", picked, ignoreFiles, includeDotfiles: false });
    },
    [send],
  );

  const onPick = (input: HTMLInputElement) => {
    const list = input.files;
    if (!list) return;
    void pick(pickedFromInput(list));
    // Picking the same folder again must fire change again.
    input.value = "";
  };

  const busy =
    phase.kind === "zipping" || phase.kind === "hashing" || phase.kind === "uploading" || phase.kind === "deploying";
  // A drop is taken only when the zone's buttons would be: not while a deploy is on its way, and
  // not on a read-only page (a suspended account's dashboard disables its fieldset). The browser's
  // own handling (opening the dropped file) stays prevented either way.
  const refusesDrop = (zone: Element) => busy || zone.closest("fieldset:disabled") !== null;
  const onDrop = async (e: React.DragEvent<HTMLElement>) => {
    e.preventDefault();
    setOver(false);
    if (refusesDrop(e.currentTarget)) return;
    await pick(await pickedFromDrop(e.dataTransfer));
  };
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
          if (refusesDrop(e.currentTarget)) e.dataTransfer.dropEffect = "none";
          else setOver(true);
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
