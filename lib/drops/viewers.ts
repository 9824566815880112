import type { AppContext } from "../context";
import type { AccountRow } from "../db/schema";
import { withDb } from "../db/errors";
import { listViewers } from "../db/sharing";
import { VIEWERS_KEPT_DAYS } from "../plans";
import type { ViewersResponse } from "../schemas";
import { ownedDrop } from "./manage";

// GET /drops/{slug}/viewers: who came to an emails-only drop (an address whose sign-in link was
// opened), with its first and last visit and its views as the stats count them, for the owner
// and the team (a team credential acts as the team's account, as for the stats). Kept
// VIEWERS_KEPT_DAYS after a viewer's last visit.

export async function getDropViewers(ctx: AppContext, account: AccountRow, slug: unknown): Promise<ViewersResponse> {
  const drop = await ownedDrop(ctx, account, slug);
  const since = new Date(ctx.now() - VIEWERS_KEPT_DAYS * 86_400_000);
  const rows = await withDb(() => listViewers(ctx.db, drop.id, since));
  return {
    viewers: rows.map((r) => ({
      email: r.email,
      first_seen: r.firstSeen.toISOString(),
      last_seen: r.lastSeen.toISOString(),
      views: r.views,
    })),
  };
}
