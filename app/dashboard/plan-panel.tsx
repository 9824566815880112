"use client";

import type { ActionResult } from "@/lib/auth/actions";
import { checkoutAction, portalAction } from "./actions";
import { day } from "./format";
import { Problem } from "./problem";
import { useAction } from "./use-action";

/** The account's plan, when it renews or ends, and the buttons to upgrade or manage billing (both leave for the billing provider's page). */
export function PlanPanel({
  plan,
  activeSubscription,
  portalAvailable,
  currentPeriodEnd,
  cancelAt,
}: {
  plan: string;
  activeSubscription: boolean;
  portalAvailable: boolean;
  currentPeriodEnd: string | null;
  cancelAt: string | null;
}) {
  const { pending, failure, run } = useAction();
  const go = (action: () => Promise<ActionResult<{ url: string }>>) =>
    run(action, { onOk: (d) => window.location.assign(d.url), refresh: false });
  return (
    <>
      <p>
        Plan: <strong data-testid="plan">{plan}</strong>
        {activeSubscription && currentPeriodEnd && <span className="muted"> · renews {day(currentPeriodEnd)}</span>}
        {cancelAt && <span className="muted"> · ends {day(cancelAt)}</span>}
      </p>
      <div className="row" style={{ justifyContent: "flex-start" }}>
        {plan !== "pro" && plan !== "team" && (
          <button type="button" className="button" disabled={pending} onClick={() => go(() => checkoutAction("pro"))}>
            Upgrade to Pro
          </button>
        )}
        {plan !== "team" && (
          <button
            type="button"
            className="button secondary"
            disabled={pending}
            onClick={() => go(() => checkoutAction("team"))}
          >
            Upgrade to Team
          </button>
        )}
        {portalAvailable && (
          <button type="button" className="button secondary" disabled={pending} onClick={() => go(portalAction)}>
            Manage billing
          </button>
        )}
      </div>
      <Problem failure={failure} />
    </>
  );
}
