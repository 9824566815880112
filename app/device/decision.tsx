"use client";

import { useState, useTransition } from "react";
import type { ActionResult } from "@/lib/auth/actions";
import { decideDeviceAction } from "./actions";

type Outcome = ActionResult<{ user_code: string; status: "approved" | "denied" }>;

// The approve/deny form of /device: the code comes from the link, or the person types it.
export function DeviceDecision({ initialCode, known, account }: { initialCode: string; known: boolean; account: string }) {
  const [code, setCode] = useState(initialCode);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, start] = useTransition();
  const decide = (approve: boolean) => start(async () => setOutcome(await decideDeviceAction(code, approve)));

  if (outcome?.ok) {
    return (
      <section className="card" role="status" data-testid="device-outcome">
        {outcome.data.status === "approved" ? (
          <p>
            Approved: your agent receives a key for <strong>{account}</strong> on its next poll. You can revoke it on the dashboard.
          </p>
        ) : (
          <p>Denied: the agent gets no key.</p>
        )}
      </section>
    );
  }
  return (
    <section className="card">
      <label htmlFor="device-code">Code shown by your agent</label>
      <input id="device-code" value={code} onChange={(e) => setCode(e.target.value)} placeholder="BCDF-GHJK" autoComplete="off" />
      {initialCode && !known && !outcome && <p className="muted">No pending request with this code: it may have expired. Check the code.</p>}
      <p>
        Signed in as <strong>{account}</strong>.
      </p>
      <button type="button" className="button" disabled={busy || code.trim() === ""} onClick={() => decide(true)}>
        Approve
      </button>{" "}
      <button type="button" disabled={busy || code.trim() === ""} onClick={() => decide(false)}>
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
