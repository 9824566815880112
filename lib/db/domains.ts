import { and, asc, eq, gt, lt, or, isNull, sql } from "drizzle-orm";
import type { Db } from "./client";
import { accounts, domains, drops, type DomainRow } from "./schema";
import type { Tx } from "./versions";
import { recordEvent } from "./events";
import { recordTeamChange } from "./team-audit";

// Queries of custom domains (lib/domains). The serve path reads active domains through
// ./serving.ts (the manifest join), not here.

/**
 * Inserts a pending domain under the account's row lock, when the account holds fewer than
 * `cap`: "cap" when it holds that many already. A hostname held by any account throws a unique
 * violation (the caller answers 409).
 */
export async function insertDomain(
  db: Db,
  row: { hostname: string; accountId: string; slug: string; verificationValue: string; now: Date },
  cap: number,
): Promise<DomainRow | "cap"> {
  return db.transaction(async (tx) => {
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, row.accountId)).for("update");
    const [held] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(domains)
      .where(eq(domains.accountId, row.accountId));
    if ((held?.n ?? 0) >= cap) return "cap";
    const [inserted] = await tx
      .insert(domains)
      .values({
        hostname: row.hostname,
        accountId: row.accountId,
        slug: row.slug,
        verificationValue: row.verificationValue,
        createdAt: row.now,
      })
      .returning();
    await recordTeamChange(tx, row.accountId, "domain.added", `domain:${row.hostname}`);
    return inserted!;
  });
}

export async function findDomain(db: Db, hostname: string): Promise<DomainRow | undefined> {
  const [row] = await db.select().from(domains).where(eq(domains.hostname, hostname)).limit(1);
  return row;
}

export function listAccountDomains(db: Db, accountId: string): Promise<DomainRow[]> {
  return db
    .select()
    .from(domains)
    .where(eq(domains.accountId, accountId))
    .orderBy(asc(domains.createdAt), asc(domains.hostname));
}

/** Deletes the account's domain (with its team audit entry); false when the account has none of that name. */
export async function deleteDomainRow(db: Db, accountId: string, hostname: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .delete(domains)
      .where(and(eq(domains.hostname, hostname), eq(domains.accountId, accountId)))
      .returning({ hostname: domains.hostname });
    if (rows.length === 0) return false;
    await recordTeamChange(tx, accountId, "domain.removed", `domain:${hostname}`);
    return true;
  });
}

/**
 * THE place a domain becomes active, inside the caller's transaction: its TXT record was seen.
 * Returns the row, or undefined when the domain is gone (deleted meanwhile). A domain that was
 * pending records its `domain.verified` event (the outbox) in the same transaction; one that was
 * active already only has its verification refreshed.
 */
export async function activateDomain(
  tx: Tx,
  hostname: string,
  accountId: string,
  now: Date,
): Promise<DomainRow | undefined> {
  const [before] = await tx
    .select({ status: domains.status })
    .from(domains)
    .where(and(eq(domains.hostname, hostname), eq(domains.accountId, accountId)))
    .for("update");
  if (!before) return undefined;
  const [row] = await tx
    .update(domains)
    .set({
      status: "active",
      verifiedAt: sql`case when ${domains.status} = 'active' then ${domains.verifiedAt} else ${now} end`,
      lastSeenAt: now,
    })
    .where(and(eq(domains.hostname, hostname), eq(domains.accountId, accountId)))
    .returning();
  if (row && before.status !== "active")
    await recordEvent(tx, { accountId, type: "domain.verified", data: { slug: row.slug, domain: row.hostname }, now });
  return row;
}

/** Records that a domain's TXT record was seen now (without a change of status). */
export async function markDomainSeen(db: Db, hostname: string, now: Date): Promise<void> {
  await db.update(domains).set({ lastSeenAt: now }).where(eq(domains.hostname, hostname));
}

/**
 * Returns an active domain to pending when its TXT record has not been seen since `before`
 * (the condition is checked again here, so a verify in between wins). True when it changed.
 */
export async function expireDomain(db: Db, hostname: string, before: Date): Promise<boolean> {
  const rows = await db
    .update(domains)
    .set({ status: "pending" })
    .where(
      and(
        eq(domains.hostname, hostname),
        eq(domains.status, "active"),
        or(isNull(domains.lastSeenAt), lt(domains.lastSeenAt, before)),
      ),
    )
    .returning({ hostname: domains.hostname });
  return rows.length > 0;
}

/** Active domains, the least recently seen first, for the cleanup job's re-check. */
export function activeDomainsToRecheck(db: Db, limit: number): Promise<DomainRow[]> {
  return db
    .select()
    .from(domains)
    .where(eq(domains.status, "active"))
    .orderBy(sql`${domains.lastSeenAt} asc nulls first`, asc(domains.hostname))
    .limit(limit);
}

/**
 * Whether a hostname is an active domain whose drop is live (Caddy's on-demand TLS `ask`): the
 * drop it names exists, still belongs to the domain's account, and has not expired.
 */
export async function isActiveDomain(db: Db, hostname: string, now: Date): Promise<boolean> {
  const [row] = await db
    .select({ hostname: domains.hostname })
    .from(domains)
    .innerJoin(drops, and(eq(drops.slug, domains.slug), eq(drops.ownerId, domains.accountId)))
    .where(
      and(
        eq(domains.hostname, hostname),
        eq(domains.status, "active"),
        or(isNull(drops.expiresAt), gt(drops.expiresAt, now)),
        isNull(drops.disabledAt),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** A drop of the account is gone: its active domains go back to pending. The hostnames changed. */
export async function unverifyDropDomains(db: Db | Tx, accountId: string, slug: string): Promise<string[]> {
  const rows = await db
    .update(domains)
    .set({ status: "pending" })
    .where(and(eq(domains.accountId, accountId), eq(domains.slug, slug), eq(domains.status, "active")))
    .returning({ hostname: domains.hostname });
  return rows.map((r) => r.hostname);
}
