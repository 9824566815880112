// Anonymous deploys keep their claim token in localStorage (the dashboard's pending claims read
// it), besides the copy and download the result offers.

export const PENDING_CLAIMS_KEY = "dropsite:pending-claims";

export interface PendingClaim {
  slug: string;
  url: string;
  claim_token: string;
  at: string;
  expires_at?: string | null;
}

export function saveClaim(claim: PendingClaim) {
  try {
    const pending = JSON.parse(localStorage.getItem(PENDING_CLAIMS_KEY) ?? "[]") as PendingClaim[];
    pending.push(claim);
    localStorage.setItem(PENDING_CLAIMS_KEY, JSON.stringify(pending.slice(-50)));
    // The storage event reaches other tabs only; tell this one too.
    window.dispatchEvent(new StorageEvent("storage", { key: PENDING_CLAIMS_KEY }));
  } catch {
    /* storage full or disabled: the person still has copy and download */
  }
}
