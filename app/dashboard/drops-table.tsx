"use client";

import Link from "next/link";
import { useState, type ReactNode } from "react";
import type { AccessMode } from "@/lib/schemas";
import { CopyButton } from "../_components/CodeBlock";
import { dateTime, dropState, relative } from "../_components/format";
import { deleteDropAction } from "./actions";
import { ConfirmDialog } from "./confirm-dialog";
import { Expiry } from "./expiry";
import { host } from "./format";
import { StateBadge } from "./state-badge";
import { Status } from "./status";
import { Table } from "./table";
import { useAction } from "./use-action";

interface DropView {
  slug: string;
  url: string;
  name: string | null;
  file_count: number;
  /** Views today and the 6 days before (lib/stats). */
  views_7d: number;
  redeploy_count: number;
  updated_at: string;
  expires_at: string | null;
  access?: AccessMode;
  disabled?: { reason: string; at: string } | null;
}

/** The account's drops, one row each: its state, files, times, and copy and delete (behind a confirmation). */
export function DropsTable({ drops, now, empty }: { drops: DropView[]; now: number; empty?: ReactNode }) {
  const [confirming, setConfirming] = useState<DropView | null>(null);
  const { pending, failure, said, run } = useAction();
  if (drops.length === 0)
    return (
      <>
        <Status text={said} failure={failure} testId="drops-said" />
        {empty ?? <p className="muted">No drops yet. Deploy one from the home page, the API or an agent.</p>}
      </>
    );
  return (
    <>
      <Status text={said} failure={failure} testId="drops-said" />
      <Table
        className="drops-table stack"
        columns={["Drop", "State", "Files", "Views (7 days)", "Updated", "Expires"]}
        hidden="Actions"
      >
        {drops.map((d) => (
          <tr key={d.slug} data-testid={`drop-${d.slug}`} className={dropState(d.expires_at, now)}>
            <td className="primary">
              <span>
                <Link href={`/dashboard/drops/${d.slug}`}>{d.name ?? d.slug}</Link>
                <br />
                <a href={d.url} className="muted small-link">
                  {host(d.url)}
                </a>
              </span>
            </td>
            <td data-label="State">
              {d.disabled ? (
                <span className="badge expired" data-testid="state-disabled">
                  Disabled by the operator ({d.disabled.reason}) · 451
                </span>
              ) : (
                <StateBadge expiresAt={d.expires_at} now={now} access={d.access} />
              )}
            </td>
            <td data-label="Files">{d.file_count}</td>
            <td data-label="Views (7 days)">{d.views_7d}</td>
            <td data-label="Updated">
              <time dateTime={d.updated_at} title={dateTime(d.updated_at)}>
                {relative(d.updated_at, now)}
              </time>
            </td>
            <td data-label="Expires">
              <Expiry iso={d.expires_at} now={now} />
            </td>
            <td className="actions">
              <span className="row" style={{ justifyContent: "flex-end" }}>
                <CopyButton text={d.url} label={`Copy the URL of ${d.name ?? d.slug}`} />
                <button
                  type="button"
                  className="button small secondary"
                  aria-label={`Delete ${d.name ?? d.slug}`}
                  onClick={() => setConfirming(d)}
                >
                  Delete
                </button>
              </span>
            </td>
          </tr>
        ))}
      </Table>
      <ConfirmDialog
        open={confirming !== null}
        title={`Delete ${confirming?.name ?? confirming?.slug ?? ""}?`}
        body={`${confirming ? host(confirming.url) : ""} stops serving at once and its files are removed. This cannot be undone.`}
        confirm="Confirm delete"
        busy={pending}
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          if (!confirming) return;
          run(() => deleteDropAction(confirming.slug), {
            said: () => `Deleted ${confirming.name ?? confirming.slug}.`,
            onDone: () => setConfirming(null),
          });
        }}
      />
    </>
  );
}
