"use client";

import { useState } from "react";

// A code sample that wraps instead of hiding its ends, with a button that copies it verbatim.
export function CodeBlock({ children, label = "this example" }: { children: string; label?: string }) {
  return (
    <div className="code-block">
      <pre>{children}</pre>
      <CopyButton text={children} label={`Copy ${label}`} />
    </div>
  );
}

/**
 * Copies text to the clipboard; says so for two seconds, on the button and to screen readers
 * (a status line that is always there, so the change is announced). Works without clipboard
 * permission too (selection fallback).
 */
export function CopyButton({
  text,
  label = "Copy",
  className = "button small secondary copy",
  testId,
  children = "Copy",
}: {
  text: string;
  label?: string;
  className?: string;
  testId?: string;
  children?: string;
}) {
  const [done, setDone] = useState(false);
  return (
    <>
      <button
        type="button"
        className={className}
        // The name keeps the visible text in it (WCAG 2.5.3), also while it says "Copied".
        aria-label={done ? `${label} (copied)` : label}
        data-testid={testId}
        onClick={() =>
          void copyText(text).then(() => {
            setDone(true);
            setTimeout(() => setDone(false), 2000);
          })
        }
      >
        {done ? "Copied" : children}
      </button>
      <span className="visually-hidden" role="status">
        {done ? "Copied to the clipboard." : ""}
      </span>
    </>
  );
}

export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard permission (plain http, old browser): the classic textarea route.
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
}
