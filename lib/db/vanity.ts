import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "./client";
import { accounts } from "./schema";

// Queries of vanity subdomains (accounts.vanity_sub).

/** Sets the account's sub if it has none; false when it already has one. A taken sub throws a unique violation. */
export async function setVanitySub(db: Db, accountId: string, sub: string): Promise<boolean> {
  const rows = await db
    .update(accounts)
    .set({ vanitySub: sub })
    .where(and(eq(accounts.id, accountId), isNull(accounts.vanitySub)))
    .returning({ id: accounts.id });
  return rows.length > 0;
}
