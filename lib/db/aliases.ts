import { and, asc, count, eq } from "drizzle-orm";
import type { Db } from "./client";
import { recordEvent } from "./events";
import { dropAliases, drops, dropVersions, type DropAliasRow } from "./schema";

// A drop's aliases: names that point at retained versions (`<slug>---<name>` serves the version).
// Writes run under the drop's row lock, as every write of its versions does, so the alias cap
// and "the version is retained" hold against parallel writes and the cleanup job's pruning.

export type SetAliasOutcome =
  | { ok: true; row: DropAliasRow }
  | { ok: false; reason: "gone" | "no_version" }
  | { ok: false; reason: "cap"; count: number };

/**
 * Creates or moves an alias to a retained version (at most `max` aliases per drop), and records
 * alias.updated for the owner's webhooks with the alias's URL.
 */
export async function setAlias(
  db: Db,
  a: { dropId: string; name: string; version: number; max: number; now: Date; url: string | null },
): Promise<SetAliasOutcome> {
  return db.transaction(async (tx): Promise<SetAliasOutcome> => {
    const [locked] = await tx
      .select({ id: drops.id, slug: drops.slug, ownerId: drops.ownerId })
      .from(drops)
      .where(eq(drops.id, a.dropId))
      .for("update");
    if (!locked) return { ok: false, reason: "gone" };
    const [kept] = await tx
      .select({ version: dropVersions.version })
      .from(dropVersions)
      .where(and(eq(dropVersions.dropId, a.dropId), eq(dropVersions.version, a.version)));
    if (!kept) return { ok: false, reason: "no_version" };
    const [existing] = await tx
      .select({ name: dropAliases.name })
      .from(dropAliases)
      .where(and(eq(dropAliases.dropId, a.dropId), eq(dropAliases.name, a.name)));
    if (!existing) {
      const [n] = await tx.select({ n: count() }).from(dropAliases).where(eq(dropAliases.dropId, a.dropId));
      if ((n?.n ?? 0) >= a.max) return { ok: false, reason: "cap", count: n?.n ?? 0 };
    }
    const [row] = await tx
      .insert(dropAliases)
      .values({ dropId: a.dropId, name: a.name, version: a.version, updatedAt: a.now })
      .onConflictDoUpdate({
        target: [dropAliases.dropId, dropAliases.name],
        set: { version: a.version, updatedAt: a.now },
      })
      .returning();
    await recordEvent(tx, {
      accountId: locked.ownerId,
      type: "alias.updated",
      data: { slug: locked.slug, name: a.name, version: a.version, url: a.url },
      now: a.now,
    });
    return { ok: true, row: row! };
  });
}

/** A drop's aliases by name. */
export async function listAliases(db: Db, dropId: string): Promise<DropAliasRow[]> {
  return db.select().from(dropAliases).where(eq(dropAliases.dropId, dropId)).orderBy(asc(dropAliases.name));
}

/** Deletes an alias (false: there was none) and records alias.deleted. */
export async function deleteAlias(db: Db, dropId: string, name: string, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [locked] = await tx
      .select({ slug: drops.slug, ownerId: drops.ownerId })
      .from(drops)
      .where(eq(drops.id, dropId))
      .for("update");
    if (!locked) return false;
    const gone = await tx
      .delete(dropAliases)
      .where(and(eq(dropAliases.dropId, dropId), eq(dropAliases.name, name)))
      .returning({ version: dropAliases.version });
    if (gone.length === 0) return false;
    await recordEvent(tx, {
      accountId: locked.ownerId,
      type: "alias.deleted",
      data: { slug: locked.slug, name, version: gone[0]!.version },
      now,
    });
    return true;
  });
}
