"use client";

import { useActionState } from "react";
import { actAsAction, type ActingFormState } from "./acting-action";

interface ActingOption {
  /** "" for the person, else the team's slug. */
  value: string;
  label: string;
}

/**
 * The dashboard's "Acting as" control: a labelled select of the person and their teams (with
 * their role) and a button that switches (a plain form: it works before the script runs, and
 * choosing an option changes nothing until the person asks, WCAG 3.2.2).
 */
export function ActingSwitcher({ options, current }: { options: ActingOption[]; current: string }) {
  const [state, action, pending] = useActionState<ActingFormState, FormData>(actAsAction, { error: null });
  return (
    <form action={action} className="acting-as">
      <label htmlFor="acting-as">Acting as</label>
      <div className="row">
        <select id="acting-as" name="acting" defaultValue={current}>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
        <button type="submit" className="button secondary" disabled={pending}>
          Switch
        </button>
      </div>
      {state.error && (
        <p className="error" role="alert">
          {state.error}
        </p>
      )}
    </form>
  );
}
