import { Problem, type Failure } from "./problem";

/**
 * The outcome of a panel's actions: a polite status line that is always on the page, so what is
 * put into it is announced, then what went wrong, if anything (an alert). The line is hidden
 * where the page shows the outcome by itself changing (a revoked key's row goes away, and its
 * button with it), shown where it is the only word of it (the drop page's forms).
 */
export function Status({
  text,
  failure,
  testId,
  shown = false,
}: {
  text: string;
  failure: Failure | null;
  testId: string;
  shown?: boolean;
}) {
  return (
    <>
      <p className={shown ? undefined : "visually-hidden"} role="status" aria-live="polite" data-testid={testId}>
        {text}
      </p>
      <Problem failure={failure} />
    </>
  );
}
