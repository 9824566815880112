import { dropState } from "../_components/format";

/** Whether a drop serves: "Live", or "Expired · offline" once its expiry has passed. */
export function StateBadge({ expiresAt, now }: { expiresAt: string | null; now: number }) {
  return dropState(expiresAt, now) === "expired" ? (
    <span className="badge expired" data-testid="state-expired">
      Expired · offline
    </span>
  ) : (
    <span className="badge live">Live</span>
  );
}
