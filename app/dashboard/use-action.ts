import { useRouter } from "next/navigation";
import { useState, useTransition, type FormEvent } from "react";
import type { ActionResult } from "@/lib/auth/actions";
import type { Failure } from "./problem";

/** What follows a server action's answer. */
interface Then<T> {
  /** What the status line says when it succeeded (the line empties when it failed). */
  said?: (data: T) => string;
  /** Called with the data when it succeeded. */
  onOk?: (data: T) => void;
  /** Called with every answer (closing the confirmation dialog that asked for it). */
  onDone?: (result: ActionResult<T>) => void;
  /** Fetch the page's server data again (the default); off where the action leaves the page. */
  refresh?: boolean;
}

/**
 * The dashboard's one way to run a server action from a button or a form: in a transition
 * (`pending` while it runs, for disabling buttons), its failure kept for <Problem/> and its
 * outcome for <Status/>, then the page's server data fetched again.
 */
export function useAction() {
  const router = useRouter();
  const [failure, setFailure] = useState<Failure | null>(null);
  const [said, setSaid] = useState("");
  const [pending, start] = useTransition();
  const run = <T>(action: () => Promise<ActionResult<T>>, then: Then<T> = {}) =>
    start(async () => {
      const r = await action();
      setFailure(r.ok ? null : r);
      setSaid(r.ok && then.said ? then.said(r.data) : "");
      if (r.ok) then.onOk?.(r.data);
      then.onDone?.(r);
      if (then.refresh ?? true) router.refresh();
    });
  /** The same for a form's submit event (the page does not reload). */
  const submit =
    <T>(action: () => Promise<ActionResult<T>>, then: Then<T> = {}) =>
    (e: FormEvent<HTMLFormElement>) => {
      e.preventDefault();
      run(action, then);
    };
  return { pending, failure, said, run, submit };
}
