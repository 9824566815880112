import { and, eq, inArray, lt, sql } from "drizzle-orm";
import type { Db } from "./client";
import { oauthModels, teams, type OauthModelRow, type TeamRow } from "./schema";

// Named queries of the OAuth authorization server's storage (lib/oauth/adapter.ts stores
// oidc-provider's models through these).

export interface OauthModelWrite {
  model: string;
  id: string;
  payload: Record<string, unknown>;
  grantId: string | null;
  uid: string | null;
  userCode: string | null;
  accountId: string | null;
  clientId: string | null;
  expiresAt: Date | null;
}

export async function upsertOauthModel(db: Db, row: OauthModelWrite): Promise<void> {
  const { model: _model, id: _id, ...rest } = row;
  await db
    .insert(oauthModels)
    .values(row)
    .onConflictDoUpdate({ target: [oauthModels.model, oauthModels.id], set: rest });
}

/** Inserts when absent; answers the row that is stored (the first writer's, under a race). */
export async function insertOauthModelOnce(db: Db, row: OauthModelWrite): Promise<OauthModelRow> {
  await db.insert(oauthModels).values(row).onConflictDoNothing();
  const stored = await findOauthModel(db, row.model, row.id);
  if (!stored) throw new Error(`oauth model ${row.model} ${row.id} vanished after insert`);
  return stored;
}

export async function findOauthModel(db: Db, model: string, id: string): Promise<OauthModelRow | undefined> {
  const [row] = await db
    .select()
    .from(oauthModels)
    .where(and(eq(oauthModels.model, model), eq(oauthModels.id, id)))
    .limit(1);
  return row;
}

export async function findOauthModelBy(
  db: Db,
  model: string,
  column: "uid" | "userCode",
  value: string,
): Promise<OauthModelRow | undefined> {
  const [row] = await db
    .select()
    .from(oauthModels)
    .where(and(eq(oauthModels.model, model), eq(oauthModels[column], value)))
    .limit(1);
  return row;
}

export async function consumeOauthModel(db: Db, model: string, id: string, at: Date): Promise<void> {
  await db
    .update(oauthModels)
    .set({ consumedAt: at })
    .where(and(eq(oauthModels.model, model), eq(oauthModels.id, id)));
}

export async function destroyOauthModel(db: Db, model: string, id: string): Promise<void> {
  await db.delete(oauthModels).where(and(eq(oauthModels.model, model), eq(oauthModels.id, id)));
}

/** Whether an account's OAuth grant still exists (not revoked, not expired). */
export async function liveOauthGrant(db: Db, grantId: string, accountId: string, now: Date): Promise<boolean> {
  const row = await findOauthModel(db, "Grant", grantId);
  return !!row && row.accountId === accountId && !(row.expiresAt && row.expiresAt <= now);
}

/** Every model instance (codes, tokens) issued under a grant. */
export async function destroyOauthGrantRows(db: Db, grantIds: string[]): Promise<void> {
  if (grantIds.length === 0) return;
  await db.delete(oauthModels).where(inArray(oauthModels.grantId, grantIds));
}

/** Forgets rows that expired before `before`. */
export async function purgeOauthModels(db: Db, before: Date): Promise<void> {
  await db.delete(oauthModels).where(lt(oauthModels.expiresAt, before));
}

export interface ConnectedClientRow {
  clientId: string;
  clientPayload: Record<string, unknown> | null;
  grantIds: string[];
  firstAt: Date;
}

/** The clients an account has authorised (one entry per client, with all of its live grants). */
export async function listAccountGrants(db: Db, accountId: string, now: Date): Promise<ConnectedClientRow[]> {
  const grants = await db
    .select({
      id: oauthModels.id,
      clientId: oauthModels.clientId,
      createdAt: oauthModels.createdAt,
      expiresAt: oauthModels.expiresAt,
    })
    .from(oauthModels)
    .where(and(eq(oauthModels.accountId, accountId), eq(oauthModels.model, "Grant")))
    .orderBy(oauthModels.createdAt);
  const byClient = new Map<string, { grantIds: string[]; firstAt: Date }>();
  for (const g of grants) {
    if (!g.clientId || (g.expiresAt && g.expiresAt <= now)) continue;
    const entry = byClient.get(g.clientId) ?? { grantIds: [], firstAt: g.createdAt };
    entry.grantIds.push(g.id);
    byClient.set(g.clientId, entry);
  }
  if (byClient.size === 0) return [];
  const clients = await db
    .select({ id: oauthModels.id, payload: oauthModels.payload })
    .from(oauthModels)
    .where(and(eq(oauthModels.model, "Client"), inArray(oauthModels.id, [...byClient.keys()])));
  const payloads = new Map(clients.map((c) => [c.id, c.payload]));
  return [...byClient].map(([clientId, e]) => ({
    clientId,
    clientPayload: payloads.get(clientId) ?? null,
    grantIds: e.grantIds,
    firstAt: e.firstAt,
  }));
}

/** Deletes an account's grants of one client and everything issued under them; false when there were none. */
export async function revokeAccountClient(db: Db, accountId: string, clientId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const grants = await tx
      .delete(oauthModels)
      .where(
        and(eq(oauthModels.model, "Grant"), eq(oauthModels.accountId, accountId), eq(oauthModels.clientId, clientId)),
      )
      .returning({ id: oauthModels.id });
    const ids = grants.map((g) => g.id);
    if (ids.length > 0) await tx.delete(oauthModels).where(inArray(oauthModels.grantId, ids));
    // Sessions and interactions of the account with this client carry no grant id; tokens do.
    await tx
      .delete(oauthModels)
      .where(
        and(
          eq(oauthModels.accountId, accountId),
          eq(oauthModels.clientId, clientId),
          sql`${oauthModels.model} <> 'Client'`,
        ),
      );
    return ids.length > 0;
  });
}

/** Records the team a grant acts for (the consent page's choice), once the grant is saved. */
export async function setOauthGrantTeam(db: Db, grantId: string, teamId: string): Promise<void> {
  await db
    .update(oauthModels)
    .set({ teamId })
    .where(and(eq(oauthModels.model, "Grant"), eq(oauthModels.id, grantId)));
}

/** The team a grant acts for, or undefined when it acts as its person. */
export async function findOauthGrantTeam(
  db: Db,
  grantId: string,
): Promise<Pick<TeamRow, "id" | "accountId"> | undefined> {
  const [row] = await db
    .select({ id: teams.id, accountId: teams.accountId })
    .from(oauthModels)
    .innerJoin(teams, eq(teams.id, oauthModels.teamId))
    .where(and(eq(oauthModels.model, "Grant"), eq(oauthModels.id, grantId)))
    .limit(1);
  return row;
}
