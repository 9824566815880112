"use client";

import { useActionState, useState } from "react";
import type { AccessMode } from "@/lib/schemas";
import { accessAction, type AccessFormState } from "./actions";
import { Button, Field } from "../_components/ui";
import { Status } from "./status";

/** The choices of the form: "members" only for a team's drop (`team` its name). */
function choices(team: string | null): { mode: AccessMode; label: string }[] {
  return [
    { mode: "public", label: "Anyone with the URL" },
    { mode: "password", label: "Only visitors who know the password" },
    ...(team === null ? [] : [{ mode: "members" as const, label: `Members of ${team}` }]),
  ];
}

const SAID: Record<AccessMode, string> = {
  public: "Public: anyone with the URL can see this drop.",
  password: "Password-protected: visitors see a password form on every page until they enter it.",
  members: "Members only: visitors log in, and only members of the team see it.",
  emails: "Invited addresses: visitors enter their email address and open the one-time link mailed to it.",
};

// The drop page's access control: public, a password, or (a team's drop) its members. A plain
// form posting to a server action, so it works before (or without) the page's script; the
// password field is only read when "password" is chosen, and is never shown back.
export function AccessPanel({
  slug,
  mode,
  team,
  minChars,
  maxChars,
}: {
  slug: string;
  mode: AccessMode;
  /** The owning team's name; null for a person's own drop. */
  team: string | null;
  minChars: number;
  maxChars: number;
}) {
  const [state, formAction, pending] = useActionState<AccessFormState, FormData>(accessAction, {
    mode,
    saved: false,
    failure: null,
    round: 0,
  });
  // React resets the form after each action (the password field empties, as it should); the
  // choice is kept in state, and its radios are made anew each round so the reset, which goes
  // back to the checked state the inputs were created with, cannot undo it.
  const [choice, setChoice] = useState<AccessMode>(mode);
  return (
    <section className="card" aria-labelledby="access-title">
      <h2 id="access-title">Access</h2>
      <p data-testid="access-mode">{SAID[state.mode]}</p>
      <form action={formAction} className="access-form">
        <input type="hidden" name="slug" value={slug} />
        <fieldset key={state.round}>
          <legend>Who can see this drop</legend>
          {choices(team).map((c) => (
            <label key={c.mode} className="check">
              <input
                type="radio"
                name="mode"
                value={c.mode}
                checked={choice === c.mode}
                onChange={() => setChoice(c.mode)}
              />{" "}
              {c.label}
            </label>
          ))}
        </fieldset>
        <Field
          id="access-password"
          name="password"
          kind="password"
          label={`Password (${minChars}–${maxChars} characters)`}
          autoComplete="new-password"
          maxLength={maxChars * 2}
          hint="Saving signs out everyone who unlocked this drop before. The password is stored only as a hash: keep it somewhere safe."
        />
        <Button type="submit" disabled={pending}>
          {pending ? "Saving…" : "Save access"}
        </Button>
        <Status
          shown
          testId="access-status"
          text={
            state.saved
              ? state.mode === "password"
                ? "Saved: the drop is password-protected."
                : state.mode === "members"
                  ? `Saved: only members of ${team ?? "the team"} can see the drop.`
                  : "Saved: the drop is public."
              : ""
          }
          failure={state.failure}
        />
      </form>
    </section>
  );
}
