import { and, eq, sql } from "drizzle-orm";
import type { Db } from "./client";
import { recordEvent } from "./events";
import { drops, type DropRow } from "./schema";

// A drop's access policy: its mode, its password's hash, and the version every unlock cookie
// names. Every change bumps the version in the same statement, so no cookie outlives a change.

export type DropAccess = Pick<DropRow, "id" | "accessMode" | "accessPasswordHash" | "accessPolicyVersion">;

/**
 * Sets an owned drop's access and bumps its policy version, in one statement, and records
 * drop.access_changed in the same transaction; undefined when the drop is gone or no longer the owner's.
 */
export async function setDropAccessRow(
  db: Db,
  dropId: string,
  ownerId: string,
  access: { mode: "public"; passwordHash: null } | { mode: "password"; passwordHash: string },
  now: Date,
): Promise<DropAccess | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(drops)
      .set({
        accessMode: access.mode,
        accessPasswordHash: access.passwordHash,
        accessPolicyVersion: sql`${drops.accessPolicyVersion} + 1`,
      })
      .where(and(eq(drops.id, dropId), eq(drops.ownerId, ownerId)))
      .returning({
        id: drops.id,
        slug: drops.slug,
        version: drops.liveVersion,
        accessMode: drops.accessMode,
        accessPasswordHash: drops.accessPasswordHash,
        accessPolicyVersion: drops.accessPolicyVersion,
      });
    if (!row) return undefined;
    await recordEvent(tx, {
      accountId: ownerId,
      type: "drop.access_changed",
      data: { slug: row.slug, version: row.version, access: row.accessMode },
      now,
    });
    const { slug: _slug, version: _version, ...policy } = row;
    return policy;
  });
}

/** The current access policy of a drop (the unlock form checks against it, never a cached copy). */
export async function findDropAccess(db: Db, dropId: string): Promise<DropAccess | undefined> {
  const [row] = await db
    .select({
      id: drops.id,
      accessMode: drops.accessMode,
      accessPasswordHash: drops.accessPasswordHash,
      accessPolicyVersion: drops.accessPolicyVersion,
    })
    .from(drops)
    .where(eq(drops.id, dropId))
    .limit(1);
  return row;
}
