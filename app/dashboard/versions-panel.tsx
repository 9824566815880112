"use client";

import { useState } from "react";
import { CopyButton } from "../_components/CodeBlock";
import { bytes, dateTime, relative } from "../_components/format";
import { rollbackAction } from "./actions";
import { ConfirmDialog } from "./confirm-dialog";
import { host } from "./format";
import { Status } from "./status";
import { Table } from "./table";
import { useAction } from "./use-action";

interface VersionView {
  version: number;
  created_at: string;
  file_count: number;
  total_bytes: number;
  kind: "deploy" | "replace" | "append";
  live: boolean;
  version_url: string | null;
}

/**
 * A drop's retained versions, newest first: each one's own address (its preview host, opened in a
 * new tab or copied), "Download .zip" (its archive), and on every version that is not live "Make
 * live" behind a confirmation (the rollback route, which moves live to any retained version,
 * older or newer). `blocked` says why the session may not make a version live (a viewer's role, a
 * disabled drop); the buttons are then left out and the reason shown once.
 */
export function VersionsPanel({
  slug,
  url,
  versions,
  now,
  blocked,
}: {
  slug: string;
  url: string;
  versions: VersionView[];
  now: number;
  blocked: string | null;
}) {
  const [target, setTarget] = useState<VersionView | null>(null);
  const { pending, failure, said, run } = useAction();
  return (
    <>
      {blocked && (
        <p className="muted" data-testid="versions-blocked">
          {blocked}
        </p>
      )}
      <Table
        className="files-table stack"
        testId="drop-versions"
        columns={["Version", "Time", "Kind", "Files", "Size", "Preview"]}
        hidden="Action"
      >
        {versions.map((v) => (
          <tr key={v.version} aria-current={v.live ? "true" : undefined} data-testid={`version-${v.version}`}>
            <td className="primary" data-label="Version">
              {v.version}
              {v.live && <span className="muted"> (live)</span>}
            </td>
            <td data-label="Time">
              <time dateTime={v.created_at} title={dateTime(v.created_at)}>
                {relative(v.created_at, now)}
              </time>
            </td>
            <td data-label="Kind">{v.kind}</td>
            <td className="num" data-label="Files">
              {v.file_count}
            </td>
            <td className="num" data-label="Size">
              {bytes(v.total_bytes)}
            </td>
            <td data-label="Preview">
              {v.version_url ? (
                <span className="row" style={{ justifyContent: "flex-start" }}>
                  <a
                    className="button small secondary"
                    href={v.version_url}
                    target="_blank"
                    rel="noopener"
                    aria-label={`Open version ${v.version} in a new tab`}
                    data-testid={`version-${v.version}-open`}
                  >
                    Open
                  </a>
                  <CopyButton text={v.version_url} label={`Copy the address of version ${v.version}`} />
                </span>
              ) : (
                <span className="muted">No own address: the name is too long for one.</span>
              )}
            </td>
            <td className="actions">
              <a
                className="button small secondary"
                href={`/dashboard/drops/${encodeURIComponent(slug)}/archive?version=${v.version}`}
                download
                aria-label={`Download .zip of version ${v.version}`}
              >
                Download .zip
              </a>{" "}
              {v.live ? (
                <strong data-testid="live-version">Live</strong>
              ) : (
                !blocked && (
                  <button
                    type="button"
                    className="button small secondary"
                    onClick={() => setTarget(v)}
                    aria-label={`Make live: version ${v.version}`}
                  >
                    Make live
                  </button>
                )
              )}
            </td>
          </tr>
        ))}
      </Table>
      <Status text={said} failure={failure} testId="versions-status" />
      <ConfirmDialog
        open={target !== null}
        title={`Make version ${target?.version ?? ""} live?`}
        body={`${host(url)} serves version ${target?.version ?? ""} at once (${target?.file_count ?? 0} files). The other versions stay, so you can switch back.`}
        confirm="Make live"
        testId="rollback-dialog"
        busy={pending}
        onCancel={() => setTarget(null)}
        onConfirm={() => {
          if (!target) return;
          run(() => rollbackAction(slug, target.version), {
            said: (d) => `Version ${d.live_version} is live.`,
            onDone: () => setTarget(null),
          });
        }}
      />
    </>
  );
}
