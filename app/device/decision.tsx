"use client";

import { useEffect, useRef, useState, useTransition } from "react";
import type { ActionResult } from "@/lib/auth/actions";
import type { DeviceDecisionResult } from "@/lib/device/flow";
import { decideDeviceAction } from "./actions";

type Outcome = ActionResult<DeviceDecisionResult>;

// The approve/deny form of /device: the code comes from the link, or the person types it.
export function DeviceDecision({
  initialCode,
  known,
  account,
  claims,
}: {
  initialCode: string;
  known: boolean;
  account: string;
  claims: string[];
}) {
  const [code, setCode] = useState(initialCode);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, start] = useTransition();
  const decide = (approve: boolean) => start(async () => setOutcome(await decideDeviceAction(code, approve)));
  // The buttons go away with the decision: focus moves to its outcome, which is read out.
  const outcomeRef = useRef<HTMLElement>(null);
  useEffect(() => {
    if (outcome?.ok) outcomeRef.current?.focus();
  }, [outcome]);

  if (outcome?.ok) {
    return (
      <section className="card" role="status" data-testid="device-outcome" tabIndex={-1} ref={outcomeRef}>
        {outcome.data.status === "approved" ? (
          <>
            <p>
              Approved: your agent receives a key for <strong>{account}</strong> on its next poll. You can revoke it on
              the dashboard.
            </p>
            {outcome.data.claims.length > 0 && (
              <ul data-testid="device-claims-outcome">
                {outcome.data.claims.map((c) => (
                  <li key={c.slug}>
                    <code>{c.slug}</code>:{" "}
                    {c.claimed ? <>moved into your account ({c.url})</> : <>not moved — {c.error}</>}
                  </li>
                ))}
              </ul>
            )}
          </>
        ) : (
          <p>Denied: the agent gets no key.</p>
        )}
      </section>
    );
  }
  return (
    <section className="card">
      <label htmlFor="device-code">Code shown by your agent</label>
      <input
        id="device-code"
        value={code}
        onChange={(e) => setCode(e.target.value)}
        placeholder="BCDF-GHJK"
        autoComplete="off"
      />
      {initialCode && !known && !outcome && (
        <p className="muted">No pending request with this code: it may have expired. Check the code.</p>
      )}
      <p>
        Signed in as <strong>{account}</strong>.
      </p>
      {known && claims.length > 0 && (
        <div data-testid="device-claims">
          <p>
            This agent also asks to move {claims.length} drop{claims.length === 1 ? "" : "s"} it published anonymously
            into your account:
          </p>
          <ul>
            {claims.map((slug) => (
              <li key={slug}>
                <code>{slug}</code>
              </li>
            ))}
          </ul>
          <p className="muted">
            Approving moves them too (each as a claim would: your plan&apos;s drop limit and lifetimes apply).
          </p>
        </div>
      )}
      <button type="button" className="button" disabled={busy || code.trim() === ""} onClick={() => decide(true)}>
        Approve
      </button>{" "}
      <button
        type="button"
        className="button secondary"
        disabled={busy || code.trim() === ""}
        onClick={() => decide(false)}
      >
        Deny
      </button>
      {outcome && !outcome.ok && (
        <div className="error" role="alert">
          <p>
            {outcome.error} <code>{outcome.code}</code>
          </p>
          {outcome.hint && <p>{outcome.hint}</p>}
        </div>
      )}
    </section>
  );
}
