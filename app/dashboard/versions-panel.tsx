"use client";

import { useState } from "react";
import { bytes, dateTime, relative } from "../_components/format";
import { rollbackAction } from "./actions";
import { ConfirmDialog } from "./confirm-dialog";
import { host } from "./format";
import { Problem } from "./problem";
import { Table } from "./table";
import { useAction } from "./use-action";

interface VersionView {
  version: number;
  created_at: string;
  file_count: number;
  total_bytes: number;
  kind: "deploy" | "replace" | "append";
  live: boolean;
}

/**
 * A drop's retained versions, newest first, each with "Download .zip" (its archive) and a Rollback
 * button behind a confirmation dialog.
 */
export function VersionsPanel({
  slug,
  url,
  versions,
  now,
}: {
  slug: string;
  url: string;
  versions: VersionView[];
  now: number;
}) {
  const [target, setTarget] = useState<VersionView | null>(null);
  const { pending, failure, run } = useAction();
  return (
    <>
      <Table
        className="files-table"
        testId="drop-versions"
        columns={["Version", "Time", "Kind", "Files", "Size"]}
        hidden="Action"
      >
        {versions.map((v) => (
          <tr key={v.version} aria-current={v.live ? "true" : undefined}>
            <td>
              {v.version}
              {v.live && <span className="muted"> (live)</span>}
            </td>
            <td>
              <time dateTime={v.created_at} title={dateTime(v.created_at)}>
                {relative(v.created_at, now)}
              </time>
            </td>
            <td>{v.kind}</td>
            <td className="num">{v.file_count}</td>
            <td className="num">{bytes(v.total_bytes)}</td>
            <td>
              <a
                className="button small secondary"
                href={`/dashboard/drops/${encodeURIComponent(slug)}/archive?version=${v.version}`}
                download
                aria-label={`Download .zip of version ${v.version}`}
              >
                Download .zip
              </a>{" "}
              {!v.live && (
                <button
                  type="button"
                  className="button small secondary"
                  onClick={() => setTarget(v)}
                  aria-label={`Roll back to version ${v.version}`}
                >
                  Rollback
                </button>
              )}
            </td>
          </tr>
        ))}
      </Table>
      <Problem failure={failure} />
      <ConfirmDialog
        open={target !== null}
        title={`Serve version ${target?.version ?? ""}?`}
        body={`${host(url)} serves version ${target?.version ?? ""} at once (${target?.file_count ?? 0} files). The other versions stay, so you can switch back.`}
        confirm="Confirm rollback"
        testId="rollback-dialog"
        busy={pending}
        onCancel={() => setTarget(null)}
        onConfirm={() => {
          if (!target) return;
          run(() => rollbackAction(slug, target.version), { onDone: () => setTarget(null) });
        }}
      />
    </>
  );
}
