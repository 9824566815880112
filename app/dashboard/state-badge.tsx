import type { AccessMode } from "@/lib/schemas";
import { dropState } from "../_components/format";

/** Whether a drop serves: "Live", or "Expired · offline" once its expiry has passed; and a lock when it asks for a password. */
export function StateBadge({
  expiresAt,
  now,
  access = "public",
}: {
  expiresAt: string | null;
  now: number;
  access?: AccessMode;
}) {
  return (
    <>
      {dropState(expiresAt, now) === "expired" ? (
        <span className="badge expired" data-testid="state-expired">
          Expired · offline
        </span>
      ) : (
        <span className="badge live">Live</span>
      )}
      {access !== "public" && (
        <>
          {" "}
          <span className="badge protected" data-testid="state-protected">
            {access === "password" ? "Password" : "Members"}
          </span>
        </>
      )}
    </>
  );
}
