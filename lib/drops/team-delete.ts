import type { AppContext } from "../context";
import { withDb } from "../db/errors";
import { listDropsOf } from "../db/queries";
import { detachAccountDomains } from "../domains/detach";
import { ApiError } from "../errors";
import { teamFor, type PersonCaller } from "../teams/access";
import { deleteTeam } from "../teams/teams";
import { removeDrop } from "./manage";

// DELETE /teams/{team} (owners): the team goes with what it holds (DESIGN "Teams"). Its drops are
// purged as an owner's delete purges one (bytes, rows, cache, domains), the rest of its domains
// leave Vercel, then the team's rows go (members, invitations, audit, keys, webhooks, domains
// by foreign key, with the team's account). Never a person's billing.

export async function deleteTeamWithHoldings(ctx: AppContext, caller: PersonCaller, slug: string) {
  const { team } = await teamFor(ctx, caller, slug, "deleteTeam", "delete the team");
  for (const drop of await withDb(() => listDropsOf(ctx.db, team.accountId))) {
    try {
      await removeDrop(ctx, drop);
    } catch (err) {
      // Deleted meanwhile by another request: gone either way.
      if (!(err instanceof ApiError && err.code === "not_found")) throw err;
    }
  }
  await detachAccountDomains(ctx, team.accountId);
  return deleteTeam(ctx, caller, slug);
}
