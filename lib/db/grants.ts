import { and, eq, gt, isNull, lte } from "drizzle-orm";
import type { Db } from "./client";
import { deployGrants, type DeployGrantRow } from "./schema";

// Named queries of the one-time deploy grants (lib/deploy/grants.ts).

export async function insertDeployGrant(db: Db, row: typeof deployGrants.$inferInsert): Promise<void> {
  await db.insert(deployGrants).values(row);
}

export async function findDeployGrant(db: Db, id: string): Promise<DeployGrantRow | undefined> {
  const [row] = await db.select().from(deployGrants).where(eq(deployGrants.id, id)).limit(1);
  return row;
}

/** Unused and live → used, for exactly one caller: the row, or undefined. */
export async function takeDeployGrant(db: Db, id: string, now: Date): Promise<DeployGrantRow | undefined> {
  const [row] = await db
    .update(deployGrants)
    .set({ usedAt: now })
    .where(and(eq(deployGrants.id, id), isNull(deployGrants.usedAt), gt(deployGrants.expiresAt, now)))
    .returning();
  return row;
}

/** Gives a grant back after the deploy that took it was refused. */
export async function returnDeployGrant(db: Db, id: string): Promise<void> {
  await db.update(deployGrants).set({ usedAt: null }).where(eq(deployGrants.id, id));
}

/** Forgets grants that expired before `before` (kept until then for a clear answer). */
export async function purgeDeployGrants(db: Db, before: Date): Promise<void> {
  await db.delete(deployGrants).where(lte(deployGrants.expiresAt, before));
}
