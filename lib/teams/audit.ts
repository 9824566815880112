import type { AppContext } from "../context";
import { withDb } from "../db/errors";
import { listTeamAudit } from "../db/teams";
import { ApiError } from "../errors";
import { pageIntegers } from "../input";
import { teamAuditQuerySchema, type TeamAuditResponse } from "../schemas";
import { teamFor, type PersonCaller } from "./access";

// GET /teams/{team}/audit?limit&offset – the team's audit log, newest first (admins and owners).

export async function teamAuditLog(
  ctx: AppContext,
  caller: PersonCaller,
  slug: string,
  query: Record<string, string>,
): Promise<TeamAuditResponse> {
  const { team } = await teamFor(ctx, caller, slug, "audit", "read the audit log");
  const parsed = teamAuditQuerySchema.safeParse(pageIntegers(query, "teams"));
  if (!parsed.success) throw ApiError.fromZod(parsed.error, "The query", { docs: "teams" });
  const { limit, offset } = parsed.data;
  const page = await withDb(() => listTeamAudit(ctx.db, team.id, limit, offset));
  return {
    total: page.total,
    entries: page.entries.map((e) => ({
      id: e.id,
      at: e.at.toISOString(),
      actor: { id: e.actorId, email: e.actorEmail },
      credential: { kind: e.credentialKind, id: e.credentialId },
      action: e.action,
      target: e.target,
    })),
  };
}
