import type { AccountRow } from "../db/schema";
import type { TeamRole } from "../schemas";

// Who is calling, as every layer that asks sees it (lib/auth/caller.ts resolves one; the team
// modules that act as a team build one), apart from the resolution so neither imports the other.

export interface Caller {
  account: AccountRow | null;
  /** How the caller proved who they are. */
  via: "anonymous" | "api_key" | "id_token" | "session" | "deploy_grant" | "oauth";
  /** Stable key for per-credential rate limits. */
  credentialKey: string;
  /** A team key's team and the minting person's role in it now (lib/teams/access.ts reads it). */
  team?: { id: string; role: TeamRole };
  /**
   * When the caller acts as a team (lib/teams/acting.ts), the person behind it: `account` is
   * then the team's account, and the audit and webhook bodies name this person.
   */
  actor?: AccountRow;
}
