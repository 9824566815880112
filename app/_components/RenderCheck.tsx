"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import type { RenderResult } from "@/lib/schemas";
import { renderCheckAction } from "./render-action";

// The render check on a drop's page: the latest check's verdict and desktop screenshot (the
// drop's thumbnail), what went wrong, and a button that checks the live version again. Without
// a browser on the server the button is off and says why.

const VERDICT: Record<RenderResult["status"], string> = {
  ok: "OK: no console errors, exceptions, failed requests or blank page.",
  problems: "Problems seen in a real browser.",
  failed: "The page did not load.",
};

export function RenderCheck({
  slug,
  latest,
  unavailable,
}: {
  slug: string;
  latest: RenderResult | null;
  /** Why no check can run on this server (no browser set up), or null. */
  unavailable: string | null;
}) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [error, setError] = useState<{ error: string; code: string; hint?: string } | null>(null);
  const check = () =>
    start(async () => {
      const r = await renderCheckAction(slug);
      setError(r.ok ? null : r);
      router.refresh();
    });
  return (
    <section className="card render-check" aria-labelledby="render-check-title" data-testid="render-check">
      <h2 id="render-check-title">In a real browser</h2>
      {latest ? (
        <>
          <p role="status" data-testid="render-verdict">
            {VERDICT[latest.status]}
            {latest.http_status !== null && <span className="muted"> HTTP {latest.http_status}</span>}
            {latest.load_ms !== null && <span className="muted">, loaded in {latest.load_ms} ms</span>}
          </p>
          {latest.screenshots.desktop && (
            <a href={latest.screenshots.desktop} target="_blank" rel="noopener">
              {/* A fixed-size PNG already made small, from the app's own host: nothing for next/image to optimise. */}
              {/* eslint-disable-next-line @next/next/no-img-element */}
              <img
                className="render-thumb"
                src={latest.screenshots.desktop}
                alt={`Screenshot of ${latest.url} at 1280×800`}
                width={320}
                height={200}
                data-testid="render-thumbnail"
              />
            </a>
          )}
          {latest.screenshots.phone && (
            <p>
              <a href={latest.screenshots.phone} target="_blank" rel="noopener">
                Phone screenshot (390×844)
              </a>
            </p>
          )}
          <Findings r={latest} />
        </>
      ) : (
        <p className="muted">Not checked yet.</p>
      )}
      <p>
        <button
          type="button"
          onClick={check}
          disabled={pending || unavailable !== null}
          aria-describedby={unavailable ? "render-off" : undefined}
        >
          {pending ? "Checking…" : "Check in a browser"}
        </button>
      </p>
      {unavailable && (
        <p className="muted" id="render-off" data-testid="render-off">
          Off on this server: {unavailable}
        </p>
      )}
      {error && (
        <div className="error" role="alert">
          <p>
            {error.error} <code>{error.code}</code>
          </p>
          {error.hint && <p>{error.hint}</p>}
        </div>
      )}
    </section>
  );
}

function Findings({ r }: { r: RenderResult }) {
  const items = [
    ...(r.blank ? ["The page shows nothing (blank)."] : []),
    ...r.page_errors.map((e) => `Uncaught exception: ${e}`),
    ...r.console_errors.map((e) => `Console error: ${e.text}${e.location ? ` (${e.location})` : ""}`),
    ...r.failed_requests.map((f) => `Failed request: ${f.url} (${"status" in f ? f.status : f.error})`),
  ];
  if (items.length === 0) return null;
  return (
    <ul className="render-findings" data-testid="render-findings">
      {items.map((text, i) => (
        <li key={i}>{text}</li>
      ))}
    </ul>
  );
}
