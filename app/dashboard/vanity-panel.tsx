"use client";

import { useState } from "react";
import { vanityAction } from "./actions";
import { Problem } from "./problem";
import { useAction } from "./use-action";

/** A Team account's own subdomain: claimed once here, then shown with where named drops serve. */
export function VanityPanel({ sub, serveExample }: { sub: string | null; serveExample: string }) {
  const [value, setValue] = useState("");
  const { pending, failure, submit } = useAction();
  if (sub)
    return (
      <p>
        Your subdomain: <strong>{sub}</strong>. Named drops serve at <code>{serveExample.replace("<sub>", sub)}</code>.
      </p>
    );
  return (
    <form onSubmit={submit(() => vanityAction(value))}>
      <label htmlFor="vanity-sub">Subdomain</label>{" "}
      <input
        id="vanity-sub"
        type="text"
        value={value}
        onChange={(e) => setValue(e.target.value.toLowerCase())}
        minLength={3}
        maxLength={20}
      />{" "}
      <button type="submit" className="button" disabled={pending}>
        Claim
      </button>
      <Problem failure={failure} />
    </form>
  );
}
