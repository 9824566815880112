"use client";

import { useEffect, useId, useRef } from "react";

/**
 * A modal confirmation (the native dialog, showModal()): asking changes nothing on the page
 * behind it, which is inert meanwhile. Focus starts on Cancel, Tab and Shift+Tab go round the
 * dialog's buttons (never out to the browser's toolbar), Escape cancels, and on closing focus
 * returns to what opened it when that is still on the page.
 */
export function ConfirmDialog({
  open,
  title,
  body,
  confirm,
  busy,
  onCancel,
  onConfirm,
  testId = "confirm-dialog",
}: {
  open: boolean;
  title: string;
  body: string;
  confirm: string;
  busy: boolean;
  onCancel: () => void;
  onConfirm: () => void;
  testId?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  // One page may hold several dialogs (a drop's delete and rollback): each names itself by its own heading.
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      d.showModal();
    }
    if (!open && d.open) d.close();
  }, [open]);
  const trap = (e: React.KeyboardEvent<HTMLDialogElement>) => {
    if (e.key !== "Tab") return;
    const stops = [
      ...e.currentTarget.querySelectorAll<HTMLElement>(
        "button:not(:disabled), a[href], input:not(:disabled), [tabindex]:not([tabindex='-1'])",
      ),
    ];
    const first = stops[0];
    const last = stops[stops.length - 1];
    if (!first || !last) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };
  return (
    <dialog
      ref={ref}
      className="confirm"
      onCancel={onCancel}
      onClose={() => {
        if (opener.current?.isConnected) opener.current.focus();
        opener.current = null;
      }}
      onKeyDown={trap}
      aria-labelledby={titleId}
      data-testid={testId}
    >
      <h2 id={titleId}>{title}</h2>
      <p>{body}</p>
      <div className="row" style={{ justifyContent: "flex-end" }}>
        <button type="button" className="button secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="button danger" disabled={busy} onClick={onConfirm}>
          {confirm}
        </button>
      </div>
    </dialog>
  );
}
