"use server";

import { runAsSession, type ActionResult } from "@/lib/auth/actions";
import { joinTeam } from "@/lib/teams/invites";

// Server actions of the dashboard's team pages: the same lib/teams services as the /teams
// routes, as the session's person (lib/teams checks the input, as for the API).

export async function joinTeamAction(
  code: unknown,
): Promise<ActionResult<{ slug: string; name: string; role: string }>> {
  return runAsSession(async (ctx, caller) => {
    const joined = await joinTeam(ctx, caller, () => Promise.resolve({ code }));
    return { slug: joined.slug, name: joined.name, role: joined.role };
  });
}
