import type { ActionResult } from "@/lib/auth/actions";

/** A failed server action: the API's error envelope (message, code, hint, where to upgrade). */
export type Failure = Extract<ActionResult<unknown>, { ok: false }>;

/** What went wrong, announced at once (an alert): the message, its code, the hint and, where a plan allows more, a link to the plans. */
export function Problem({ failure }: { failure: Failure | null }) {
  if (!failure) return null;
  return (
    <div className="error" role="alert">
      <p>
        {failure.error} <code>{failure.code}</code>
      </p>
      {failure.hint && <p>{failure.hint}</p>}
      {failure.upgrade_url && (
        <p>
          <a href={failure.upgrade_url}>See plans</a>
        </p>
      )}
    </div>
  );
}
