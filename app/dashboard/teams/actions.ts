"use server";

import { runAsPerson, type ActionResult } from "@/lib/auth/actions";
import { createInvite, joinTeam, revokeInvite } from "@/lib/teams/invites";
import { removeMember, setMemberRole } from "@/lib/teams/members";
import { createTeam } from "@/lib/teams/teams";

// Server actions of the dashboard's team pages: the same lib/teams services as the /teams
// routes, as the session's person (lib/teams checks the input, as for the API).

export async function joinTeamAction(
  code: unknown,
): Promise<ActionResult<{ slug: string; name: string; role: string }>> {
  return runAsPerson(async (ctx, caller) => {
    const joined = await joinTeam(ctx, caller, () => Promise.resolve({ code }));
    return { slug: joined.slug, name: joined.name, role: joined.role };
  });
}

export async function setRoleAction(
  slug: unknown,
  account: unknown,
  role: unknown,
): Promise<ActionResult<{ account_id: string; role: string }>> {
  return runAsPerson((ctx, caller) =>
    setMemberRole(ctx, caller, String(slug), String(account), () => Promise.resolve({ role })),
  );
}

export async function removeMemberAction(slug: unknown, account: unknown): Promise<ActionResult<{ removed: string }>> {
  return runAsPerson((ctx, caller) => removeMember(ctx, caller, String(slug), String(account)));
}

export async function inviteAction(
  slug: unknown,
  role: unknown,
  email: unknown,
): Promise<ActionResult<{ id: string; url: string; role: string }>> {
  return runAsPerson(async (ctx, caller) => {
    const made = await createInvite(ctx, caller, String(slug), () =>
      Promise.resolve(email === "" || email === undefined ? { role } : { role, email }),
    );
    return { id: made.id, url: made.url, role: made.role };
  });
}

export async function revokeInviteAction(slug: unknown, id: unknown): Promise<ActionResult<{ revoked: string }>> {
  return runAsPerson((ctx, caller) => revokeInvite(ctx, caller, String(slug), String(id)));
}

export async function createTeamAction(name: unknown, slug: unknown): Promise<ActionResult<{ slug: string }>> {
  return runAsPerson(async (ctx, caller) => ({
    slug: (await createTeam(ctx, caller, () => Promise.resolve({ name, slug }))).slug,
  }));
}
