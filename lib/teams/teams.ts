import type { AppContext } from "../context";
import { withDb } from "../db/errors";
import { isUniqueViolation } from "../db/queries";
import { deleteTeamRow, insertTeam, listTeamsOf } from "../db/teams";
import { ApiError, upstreamUnavailable } from "../errors";
import { prefixedId } from "../ids";
import { RESERVED_LABELS } from "../patterns";
import { limits } from "../plans";
import { teamBodySchema, type TeamRole } from "../schemas";
import { actorOf, type LazyBody, requirePerson, teamFor, type PersonCaller } from "./access";

// Teams themselves: POST /teams (Team plan), GET /teams, DELETE /teams/{team} (owners).

/** Slugs no team may take besides the reserved labels: the literal segments under /teams/. */
const TEAM_ROUTE_WORDS: ReadonlySet<string> = new Set(["join"]);

/** The checked body of POST /teams; the 400s. */
function parseTeamBody(body: unknown): { name: string; slug: string } {
  const parsed = teamBodySchema.safeParse(body);
  if (!parsed.success) {
    throw ApiError.fromZod(parsed.error, "The body", {
      hint: "Send {name, slug}: a slug of 3 to 20 lowercase letters, digits or single hyphens, e.g. acme or my-team.",
      docs: "teams",
    });
  }
  const { slug } = parsed.data;
  if (RESERVED_LABELS.has(slug) || TEAM_ROUTE_WORDS.has(slug)) {
    throw new ApiError("invalid_request", `The slug ${slug} is reserved.`, {
      hint: "Pick another slug; a few names (www, api, docs …) are kept for the service.",
      docs: "teams",
      details: { field: "slug" },
    });
  }
  return parsed.data;
}

function slugTaken(slug: string): ApiError {
  return new ApiError("conflict", `The slug ${slug} is already taken.`, {
    hint: "Team slugs share one namespace with vanity subdomains; pick another slug.",
    docs: "teams",
  });
}

// POST /teams – create a team (Team plan); the caller is its first owner.
export async function createTeam(ctx: AppContext, caller: PersonCaller, body: LazyBody) {
  requirePerson(caller);
  const account = caller.account;
  if (limits[account.plan].maxMembers === 0) {
    throw new ApiError("subscription_required", "Teams are part of the Team plan.", {
      hint: 'Upgrade to the team plan (POST /billing/checkout with {"plan":"team"}); see upgrade_url.',
      upgrade: true,
      docs: "teams",
    });
  }
  const { name, slug } = parseTeamBody(await body());
  const now = new Date(ctx.now());
  const team = { id: prefixedId("team"), slug, name, billingOwnerId: account.id, createdAt: now };
  let created: boolean;
  try {
    created = await insertTeam(ctx.db, team, account.plan, {
      ...actorOf(ctx, caller),
      action: "team.created",
      target: `team:${slug}`,
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw slugTaken(slug);
    throw upstreamUnavailable("database", err);
  }
  if (!created) throw slugTaken(slug);
  return {
    id: team.id,
    slug,
    name,
    role: "owner" as const,
    plan: account.plan,
    created_at: now.toISOString(),
  };
}

// GET /teams – the caller's teams with their role.
export async function listTeams(ctx: AppContext, caller: PersonCaller) {
  requirePerson(caller);
  const rows = await withDb(() => listTeamsOf(ctx.db, caller.account.id));
  return { teams: rows.map((r) => ({ id: r.id, slug: r.slug, name: r.name, role: r.role satisfies TeamRole })) };
}

// DELETE /teams/{team} – owners delete the team with its members, invitations and audit log.
export async function deleteTeam(ctx: AppContext, caller: PersonCaller, slug: string) {
  const { team } = await teamFor(ctx, caller, slug, "deleteTeam", "delete the team");
  await withDb(() => deleteTeamRow(ctx.db, team.id));
  return { deleted: team.slug };
}
