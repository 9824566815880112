import { and, eq, lte, sql } from "drizzle-orm";
import type { Db } from "./client";
import { idempotencyKeys, type IdempotencyKeyRow } from "./schema";

// Idempotency keys: the unique (caller, key) row is the lock. The request that inserts it runs;
// any other with the same key finds the row and replays its answer, or is told it is in flight.

/** Inserts the row of a new key; false when a row for (caller, key) exists already. */
export async function claimIdempotencyKey(
  db: Db,
  row: { caller: string; key: string; fingerprint: string; createdAt: Date; expiresAt: Date },
): Promise<boolean> {
  const inserted = await db
    .insert(idempotencyKeys)
    .values(row)
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  return inserted.length > 0;
}

export async function findIdempotencyKey(db: Db, caller: string, key: string): Promise<IdempotencyKeyRow | undefined> {
  const [row] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.caller, caller), eq(idempotencyKeys.key, key)))
    .limit(1);
  return row;
}

/** Records the answer of the request that holds the key. */
export async function finishIdempotencyKey(
  db: Db,
  caller: string,
  key: string,
  status: number,
  body: string,
): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ status, body })
    .where(and(eq(idempotencyKeys.caller, caller), eq(idempotencyKeys.key, key)));
}

/**
 * Removes a key's row only if it is still the one seen (same creation time): a request whose
 * answer is not kept (a 5xx) frees its key, and an expired or abandoned row makes way.
 */
export async function releaseIdempotencyKey(db: Db, caller: string, key: string, createdAt: Date): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.caller, caller),
        eq(idempotencyKeys.key, key),
        sql`${idempotencyKeys.createdAt} = ${createdAt.toISOString()}::timestamptz`,
      ),
    );
}

/** Deletes keys past their 24 hours (the cleanup job). */
export async function purgeExpiredIdempotencyKeys(db: Db, now: Date): Promise<void> {
  await db.delete(idempotencyKeys).where(lte(idempotencyKeys.expiresAt, now));
}
