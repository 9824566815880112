"use client";

import { useState } from "react";
import { claimAction } from "./actions";
import { Problem } from "./problem";
import { useAction } from "./use-action";

/** The slug in a drop URL (https://<slug>.host/), or the text itself when it is already a slug. */
function slugFrom(input: string): string {
  const text = input.trim();
  try {
    return new URL(text).hostname.split(".")[0] ?? text;
  } catch {
    return text.replace(/\/+$/, "");
  }
}

// Claims a drop deployed anonymously elsewhere (curl, an agent, another browser) from its URL
// and claim token; the token file downloaded after a deploy can be pasted whole.
export function ClaimTokenPanel() {
  const [drop, setDrop] = useState("");
  const [token, setToken] = useState("");
  const [claimed, setClaimed] = useState<string | null>(null);
  const { pending, failure, submit } = useAction();
  const onToken = (value: string) => {
    // The downloaded token file is JSON carrying both the URL and the token.
    try {
      const parsed = JSON.parse(value) as { url?: unknown; slug?: unknown; claim_token?: unknown };
      if (typeof parsed.claim_token === "string") {
        setToken(parsed.claim_token);
        if (typeof parsed.url === "string" || typeof parsed.slug === "string")
          setDrop(String(parsed.url ?? parsed.slug));
        return;
      }
    } catch {
      /* a bare token */
    }
    setToken(value.trim());
  };
  const claim = submit(() => claimAction(slugFrom(drop), token), {
    onDone: (r) => setClaimed(r.ok ? r.data.url : null),
    onOk: () => {
      setDrop("");
      setToken("");
    },
  });
  return (
    <form data-testid="claim-form" onSubmit={claim}>
      <div className="form-grid">
        <p>
          <label htmlFor="claim-drop">Drop URL or slug</label>
          <input
            id="claim-drop"
            type="text"
            value={drop}
            onChange={(e) => setDrop(e.target.value)}
            placeholder="https://…"
            required
            autoComplete="off"
          />
        </p>
        <p>
          <label htmlFor="claim-token">Claim token (or the saved token file&apos;s text)</label>
          <input
            id="claim-token"
            type="text"
            value={token}
            onChange={(e) => onToken(e.target.value)}
            required
            autoComplete="off"
            spellCheck={false}
          />
        </p>
      </div>
      <button type="submit" className="button" disabled={pending}>
        Claim drop
      </button>
      <div role="status">
        {claimed && (
          <p className="notice">
            Claimed: <a href={claimed}>{claimed}</a> is now in your account.
          </p>
        )}
      </div>
      <Problem failure={failure} />
    </form>
  );
}
