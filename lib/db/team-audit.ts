import { auditId } from "./audit";
import { teamAudit } from "./schema";
import type { Db } from "./client";
import { teamActorFor } from "../log/actor-scope";

// The team audit log's one writer (lib/db/teams.ts's member changes, lib/db/events.ts's changes
// a person made for a team, lib/auth/keys.ts's team keys): append-only, in the change's own
// transaction.

/** A transaction of the database (what Db.transaction hands its callback). */
type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface NewTeamAudit {
  teamId: string;
  actorId: string;
  actorEmail: string | null;
  credentialKind: "key" | "session" | "oauth";
  credentialId: string;
  action: string;
  target: string;
  data?: Record<string, unknown> | null;
  at: Date;
}

/** Appends one entry to a team's audit log (the only writer; nothing updates or deletes one). */
export async function recordTeamAudit(tx: Tx, e: NewTeamAudit): Promise<void> {
  await tx.insert(teamAudit).values({ id: `tau_${auditId()}`, ...e, data: e.data ?? null });
}

/**
 * A change to a team's resource (a drop event, a domain or webhook added or removed), in the
 * change's own transaction: enters the team's audit log when the request acts for the
 * team that holds `accountId` (lib/log/actor-scope.ts), so the entry and the change commit or
 * roll back together.
 */
export async function recordTeamChange(
  tx: Tx,
  accountId: string,
  action: string,
  target: string,
  extra: { data?: Record<string, unknown>; at?: Date } = {},
): Promise<void> {
  const actor = teamActorFor(accountId);
  if (!actor) return;
  await recordTeamAudit(tx, {
    teamId: actor.teamId,
    actorId: actor.id,
    actorEmail: actor.email,
    credentialKind: actor.credential.kind,
    credentialId: actor.credential.id,
    action,
    target,
    data: extra.data ?? null,
    at: extra.at ?? new Date(),
  });
}
