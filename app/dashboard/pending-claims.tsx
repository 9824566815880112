"use client";

import { useMemo, useSyncExternalStore } from "react";
import { PENDING_CLAIMS_KEY, type PendingClaim } from "../_components/DropZone";
import { dropState } from "../_components/format";
import { claimAction } from "./actions";
import { Problem } from "./problem";
import { useAction } from "./use-action";

function subscribeToStorage(onChange: () => void): () => void {
  window.addEventListener("storage", onChange);
  return () => window.removeEventListener("storage", onChange);
}

function readClaims(stored: string | null): PendingClaim[] {
  try {
    const parsed: unknown = JSON.parse(stored ?? "[]");
    return Array.isArray(parsed) ? (parsed as PendingClaim[]) : [];
  } catch {
    return [];
  }
}

/** Drops this browser deployed anonymously (their claim tokens kept in local storage), each with a Claim button. */
export function PendingClaims({ now }: { now: number }) {
  // Browser storage is read after hydration (the server has none), and again when it changes.
  const stored = useSyncExternalStore(
    subscribeToStorage,
    () => localStorage.getItem(PENDING_CLAIMS_KEY),
    () => null,
  );
  const claims = useMemo(() => readClaims(stored), [stored]);
  const { pending, failure, run } = useAction();
  const forget = (slug: string) => {
    localStorage.setItem(PENDING_CLAIMS_KEY, JSON.stringify(claims.filter((c) => c.slug !== slug)));
    // The storage event reaches other tabs only; tell this one too.
    window.dispatchEvent(new StorageEvent("storage", { key: PENDING_CLAIMS_KEY }));
  };
  if (claims.length === 0) return null;
  return (
    <section className="card" aria-labelledby="claims-title">
      <h2 id="claims-title">Anonymous drops from this browser</h2>
      <p className="muted">Claim them to keep them in your account.</p>
      <Problem failure={failure} />
      <ul>
        {claims.map((c) => (
          <li key={c.slug} data-testid={`claim-${c.slug}`}>
            <a href={c.url}>{c.url}</a>{" "}
            {c.expires_at && dropState(c.expires_at, now) === "expired" && (
              <span className="badge expired" title="Claiming brings it back online">
                Expired · offline
              </span>
            )}{" "}
            <button
              type="button"
              className="button small"
              disabled={pending}
              onClick={() =>
                run(() => claimAction(c.slug, c.claim_token), {
                  // Claimed, or gone for good: either way there is nothing left to claim.
                  onDone: (r) => {
                    if (r.ok || r.code === "not_found" || r.code === "gone") forget(c.slug);
                  },
                })
              }
            >
              Claim
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
