import { env } from "../env";
import { ApiError } from "../errors";
import type { DropRow } from "../db/schema";

// A drop an operator disabled: its owner still sees it (with `disabled`) and may delete it, but
// every write to it (replace, append, rollback, access, domains) is refused with 403 forbidden.

/** Where the owner of a disabled drop or a suspended account appeals: the report form, its reason chosen. */
export function appealUrl(): string {
  return `${env().BASE_URL}/report?reason=appeal`;
}

/** The `disabled` field of the owner's API: {reason, at} or null. */
export function disabledField(
  drop: Pick<DropRow, "disabledReason" | "disabledAt">,
): { reason: string; at: string } | null {
  return drop.disabledReason !== null && drop.disabledAt !== null
    ? { reason: drop.disabledReason, at: drop.disabledAt.toISOString() }
    : null;
}

/** Throws 403 forbidden when the drop is disabled. */
export function refuseDisabled(drop: Pick<DropRow, "slug" | "disabledReason" | "disabledAt">): void {
  if (drop.disabledAt === null) return;
  throw new ApiError(
    "forbidden",
    `Drop ${drop.slug} is disabled by the operator (${drop.disabledReason ?? "other"}).`,
    {
      hint: `You can still delete it, or appeal with the report form at ${appealUrl()}.`,
    },
  );
}
