import { index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { ts } from "./columns";
import { drops } from "./drops";

// Operators and safety: the audit log, the deploy scan's findings, abuse reports, address blocks.

/**
 * The audit log (append-only: the app inserts and reads, never updates or deletes). One row per
 * operator action and per scan refusal or flag. actor: an account id, `cli`, `scan` or `system`;
 * target: `drop:<slug>`, `account:<id>`, `block:<cidr>`, `report:<id>` or `address:<keyed hash>`.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: text("id").primaryKey(),
    at: ts("at").notNull().defaultNow(),
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    target: text("target").notNull(),
    reason: text("reason"),
    data: jsonb("data").$type<Record<string, unknown>>(),
  },
  (t) => [
    index("audit_log_at_idx").on(t.at),
    index("audit_log_actor_at_idx").on(t.actor, t.at),
    index("audit_log_target_at_idx").on(t.target, t.at),
  ],
);
export type AuditRow = typeof auditLog.$inferSelect;

/**
 * What the deploy scan found on a drop's version (filled by lib/scan): `flagged` findings put the
 * drop in the review queue until an operator resolves them; `refused` ones are kept for the record.
 */
export const scanFindings = pgTable(
  "scan_findings",
  {
    id: text("id").primaryKey(),
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    /** The drop version the finding is about. */
    version: integer("version"),
    rule: text("rule").notNull(),
    file: text("file").notNull(),
    line: integer("line").notNull(),
    excerpt: text("excerpt").notNull(),
    action: text("action").$type<"refused" | "flagged">().notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    resolvedAt: ts("resolved_at"),
  },
  (t) => [index("scan_findings_drop_idx").on(t.dropId, t.createdAt), index("scan_findings_open_idx").on(t.resolvedAt)],
);
export type ScanFindingRow = typeof scanFindings.$inferSelect;

/**
 * Abuse reports (POST /reports): the reporter's address only as a keyed hash (HMAC under a key
 * derived from NEXTAUTH_SECRET), for the rate limit and for counting one address once.
 */
export const reports = pgTable(
  "reports",
  {
    id: text("id").primaryKey(),
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    /** The slug when reported (the queue and the audit name drops by slug). */
    slug: text("slug").notNull(),
    url: text("url").notNull(),
    reason: text("reason")
      .$type<"phishing" | "malware" | "spam" | "illegal" | "copyright" | "other" | "appeal">()
      .notNull(),
    details: text("details"),
    contact: text("contact"),
    reporterHash: text("reporter_hash").notNull(),
    status: text("status").$type<"open" | "resolved">().notNull().default("open"),
    /** How an operator resolved it: dismissed, disabled or deleted. */
    resolution: text("resolution"),
    createdAt: ts("created_at").notNull().defaultNow(),
    resolvedAt: ts("resolved_at"),
  },
  (t) => [
    index("reports_drop_status_idx").on(t.dropId, t.status),
    index("reports_status_created_idx").on(t.status, t.createdAt),
  ],
);
export type ReportRow = typeof reports.$inferSelect;

/** Address blocks: anonymous deploys, preflights and reports from the range are refused. */
export const blocks = pgTable(
  "blocks",
  {
    id: text("id").primaryKey(),
    /** The range in normal form (ipaddr.js: network address / prefix length). */
    cidr: text("cidr").notNull(),
    reason: text("reason").notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    /** When the block lapses; null never. */
    expiresAt: ts("expires_at"),
  },
  (t) => [index("blocks_expires_idx").on(t.expiresAt)],
);
export type BlockRow = typeof blocks.$inferSelect;
