import { after } from "next/server";
import { getContext } from "../context";
import { onEventRecorded } from "../db/events";
import { deliverDue } from "./deliver";

// Webhooks delivered right after the change answers. On Vercel no process stays up to poll the
// outbox, and a Hobby project may run its cron at most once a day: so when a request records an
// event, Next's after() runs one delivery pass once the response is out (the change has
// committed by then), within the function's time. GET /cron/webhooks stays the retry path
// (daily, valid on every plan); self-hosted, the worker's pass every WEBHOOK_POLL_SECONDS also
// runs, and the claim (FOR UPDATE SKIP LOCKED) keeps two passes off one delivery. With tracing
// on, the deliveries link to the recording request's span through the event's kept traceparent.

/** How long the pass after a response may run (the first attempts; retries wait for the cron or the worker). */
const AFTER_RESPONSE_BUDGET_MS = 15_000;

/** Once per process, from Next's instrumentation: every event recorded inside a request schedules a pass after it. */
export function deliverAfterResponses(): void {
  onEventRecorded(() => {
    try {
      after(async () => {
        try {
          await deliverDue(await getContext(), AFTER_RESPONSE_BUDGET_MS);
        } catch (err) {
          console.error("[webhooks] delivery after the response failed:", err instanceof Error ? err.message : err);
        }
      });
    } catch {
      // Outside a request of Next (a script, the data plane's own handlers): the worker or the cron delivers it.
    }
  });
}
