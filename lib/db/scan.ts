import { and, asc, eq } from "drizzle-orm";
import type { Db } from "./client";
import { recordAudit } from "./audit";
import { prefixedId } from "../ids";
import { domains, scanFindings, type ScanFindingRow } from "./schema";

// Queries of the deploy scan (lib/deploy/scan.ts): the hosts a drop answers on besides its slug
// host, and the findings that put a drop in the review queue, recorded with their audit entry.

/** The active custom domains of a drop (lower case). */
export async function activeDomainsOf(db: Db, slug: string): Promise<string[]> {
  const rows = await db
    .select({ hostname: domains.hostname })
    .from(domains)
    .where(and(eq(domains.slug, slug), eq(domains.status, "active")));
  return rows.map((r) => r.hostname);
}

export interface FlaggedFinding {
  rule: string;
  file: string;
  line: number;
  excerpt: string;
}

/**
 * Records the findings of a deploy that went through as `flagged` (the drop joins the review
 * queue) and the `scan.flagged` audit entry, in one transaction.
 */
export async function recordFlaggedFindings(
  db: Db,
  drop: { id: string; slug: string },
  version: number,
  findings: readonly FlaggedFinding[],
  now: Date,
): Promise<void> {
  if (findings.length === 0) return;
  await db.transaction(async (tx) => {
    await tx.insert(scanFindings).values(
      findings.map((f) => ({
        id: prefixedId("scf"),
        dropId: drop.id,
        version,
        rule: f.rule,
        file: f.file,
        line: f.line,
        excerpt: f.excerpt,
        action: "flagged" as const,
        createdAt: now,
      })),
    );
    await recordAudit(tx, {
      actor: "scan",
      action: "scan.flagged",
      target: `drop:${drop.slug}`,
      reason: [...new Set(findings.map((f) => f.rule))].join(", "),
      data: { version, findings: findings.map((f) => ({ rule: f.rule, file: f.file, line: f.line })) },
      at: now,
    });
  });
}

/** A drop's findings, oldest first (operators' views and tests). */
export async function findingsOf(db: Db, dropId: string): Promise<ScanFindingRow[]> {
  return db.select().from(scanFindings).where(eq(scanFindings.dropId, dropId)).orderBy(asc(scanFindings.createdAt));
}
