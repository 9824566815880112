import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "./client";
import type { Tx } from "./versions";
import { syncTeamPlans } from "./teams";
import { accounts, apiKeys, type AccountRow, type ApiKeyRow } from "./schema";

// Named queries over accounts and API keys.

/** The account of (issuer, subject), created on first sight. */
export async function upsertAccount(
  db: Db,
  a: { id: string; issuer: string; subject: string; email: string | null; emailVerified?: boolean },
): Promise<AccountRow> {
  const emailVerified = a.email !== null && a.emailVerified === true;
  await db
    .insert(accounts)
    .values({ ...a, emailVerified })
    .onConflictDoNothing({ target: [accounts.issuer, accounts.subject] });
  const [row] = await db
    .select()
    .from(accounts)
    .where(and(eq(accounts.issuer, a.issuer), eq(accounts.subject, a.subject)))
    .limit(1);
  if (!row) throw new Error("account vanished after upsert");
  // The email and whether the provider vouches for it follow the newest login.
  if (a.email && (row.email !== a.email || row.emailVerified !== emailVerified)) {
    await db.update(accounts).set({ email: a.email, emailVerified }).where(eq(accounts.id, row.id));
    row.email = a.email;
    row.emailVerified = emailVerified;
  }
  return row;
}

export async function findAccount(db: Db, id: string): Promise<AccountRow | undefined> {
  const [row] = await db.select().from(accounts).where(eq(accounts.id, id)).limit(1);
  return row;
}

export async function findAccountsByIdOrEmail(db: Db, idOrEmail: string): Promise<AccountRow[]> {
  return db
    .select()
    .from(accounts)
    .where(or(eq(accounts.id, idOrEmail), eq(sql`lower(${accounts.email})`, idOrEmail.toLowerCase())));
}

export async function setPlan(db: Db, accountId: string, plan: AccountRow["plan"]): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(accounts).set({ plan }).where(eq(accounts.id, accountId));
    await syncTeamPlans(tx, accountId, plan);
  });
}

/** The live key of a key id, with its account; revoked keys are not found. */
export async function findLiveKey(db: Db, keyId: string): Promise<{ key: ApiKeyRow; account: AccountRow } | undefined> {
  const [row] = await db
    .select({ key: apiKeys, account: accounts })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .limit(1);
  return row;
}

/** Records use of a key, at most once a minute per key. */
export async function touchKey(db: Db, keyId: string, now: Date): Promise<void> {
  const stale = new Date(now.getTime() - 60_000);
  await db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(and(eq(apiKeys.id, keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, stale))));
}

export async function insertKey(db: Db, key: typeof apiKeys.$inferInsert): Promise<void> {
  await db.insert(apiKeys).values(key);
}

/**
 * Inserts a key unless the account already has `max` live keys; false then. The account row is
 * locked for the count and the insert, so parallel mints cannot pass the cap.
 */
export async function insertKeyCapped(
  db: Db,
  key: typeof apiKeys.$inferInsert,
  max: number,
  /** Written in the same transaction after the insert (a team key's audit entry). */
  after?: (tx: Tx) => Promise<void>,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, key.accountId)).for("update");
    const [row] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, key.accountId), isNull(apiKeys.revokedAt)));
    if ((row?.n ?? 0) >= max) return false;
    await tx.insert(apiKeys).values(key);
    await after?.(tx);
    return true;
  });
}

/** A person's live keys: their own (teamId null), or their keys of one team. */
export async function listLiveKeys(db: Db, accountId: string, teamId: string | null = null): Promise<ApiKeyRow[]> {
  return db
    .select()
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.accountId, accountId),
        isNull(apiKeys.revokedAt),
        teamId === null ? isNull(apiKeys.teamId) : eq(apiKeys.teamId, teamId),
      ),
    )
    .orderBy(desc(apiKeys.createdAt));
}

/**
 * Revokes a live key of the account; false when there is none with that id. `after` runs in the
 * same transaction with the key's team (a team key's audit entry).
 */
export async function revokeKey(
  db: Db,
  accountId: string,
  keyId: string,
  now: Date,
  after?: (tx: Tx, teamId: string) => Promise<void>,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id, teamId: apiKeys.teamId });
    const teamId = rows[0]?.teamId;
    if (teamId && after) await after(tx, teamId);
    return rows.length > 0;
  });
}
