import { and, eq, isNull, or } from "drizzle-orm";
import type { Db } from "./client";
import { drops, renderChecks, type DropRow, type RenderCheckRow } from "./schema";

// The latest render check of a drop (lib/render): one row per drop, replaced by each check.

/** The drop's latest check, or null before any. */
export async function findRenderCheck(db: Db, dropId: string): Promise<RenderCheckRow | null> {
  const [row] = await db.select().from(renderChecks).where(eq(renderChecks.dropId, dropId)).limit(1);
  return row ?? null;
}

/** Stores a check as the drop's latest; answers the row it replaced (its screenshots are then unused). */
export async function saveRenderCheck(db: Db, row: Omit<RenderCheckRow, "checkedAt"> & { checkedAt: Date }) {
  return db.transaction(async (tx) => {
    const [old] = await tx.select().from(renderChecks).where(eq(renderChecks.dropId, row.dropId)).for("update");
    await tx
      .insert(renderChecks)
      .values(row)
      .onConflictDoUpdate({
        target: renderChecks.dropId,
        set: {
          result: row.result,
          desktopId: row.desktopId,
          desktopRef: row.desktopRef,
          phoneId: row.phoneId,
          phoneRef: row.phoneRef,
          checkedAt: row.checkedAt,
        },
      });
    return old ?? null;
  });
}

/** The screenshot with this id and the drop it shows, or null. */
export async function findPreview(
  db: Db,
  id: string,
): Promise<{ ref: string; drop: Pick<DropRow, "id" | "expiresAt"> } | null> {
  const [row] = await db
    .select({
      desktopId: renderChecks.desktopId,
      desktopRef: renderChecks.desktopRef,
      phoneRef: renderChecks.phoneRef,
      dropId: drops.id,
      expiresAt: drops.expiresAt,
    })
    .from(renderChecks)
    .innerJoin(drops, eq(drops.id, renderChecks.dropId))
    .where(and(or(eq(renderChecks.desktopId, id), eq(renderChecks.phoneId, id)), isNull(drops.disabledAt)))
    .limit(1);
  if (!row) return null;
  const ref = row.desktopId === id ? row.desktopRef : row.phoneRef;
  return ref ? { ref, drop: { id: row.dropId, expiresAt: row.expiresAt } } : null;
}
