import { index, pgTable, text } from "drizzle-orm/pg-core";
import { ts } from "./columns";
import { accounts } from "./drops";

// Custom domains.

/**
 * Custom domains: a hostname (normal form, lib/hostname.ts) an account points at one of its
 * drops by slug, so a named drop keeps it across replaces and rollbacks. Pending until the TXT
 * record _dropsite-challenge.<hostname> holds verification_value; then active and served.
 */
export const domains = pgTable(
  "domains",
  {
    hostname: text("hostname").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    status: text("status").$type<"pending" | "active">().notNull().default("pending"),
    /** The random value the TXT record must hold (not a secret: it is published in DNS). */
    verificationValue: text("verification_value").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    /** When the domain last became active; null while it never was. */
    verifiedAt: ts("verified_at"),
    /** When the TXT record was last seen (verify and the cleanup job's re-check). */
    lastSeenAt: ts("last_seen_at"),
  },
  (t) => [
    index("domains_account_idx").on(t.accountId, t.createdAt),
    index("domains_status_seen_idx").on(t.status, t.lastSeenAt),
  ],
);
export type DomainRow = typeof domains.$inferSelect;
