import { sql } from "drizzle-orm";
import { bigint, customType, index, pgTable, text } from "drizzle-orm/pg-core";
import { ts } from "./columns";

// The serve path's change feed (lib/serve/feed.ts).

/** PostgreSQL's 64-bit transaction id (xid8), read as its decimal text. */
const xid8 = customType<{ data: string; driverData: string }>({ dataType: () => "xid8" });

/**
 * The change feed of the serve path's manifest cache (lib/serve/feed.ts): one row per change to
 * a drop, its access, its domains or its owner's vanity sub or suspension, written by triggers on
 * drops, domains and accounts (drizzle/0016_longtail.sql), so no write path can forget it.
 * `xid` is the writing transaction's id: readers poll by it, not by seq, because sequence values
 * commit out of order. Rows older than a few minutes are pruned by the cleanup job.
 */
export const dropChanges = pgTable(
  "drop_changes",
  {
    seq: bigint("seq", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    /** The drop changed; null for a domain or account change. */
    dropId: text("drop_id"),
    /** The drop's slug (a domain change: the slug it points at). */
    slug: text("slug"),
    /** drop, domain or account. */
    kind: text("kind").$type<"drop" | "domain" | "account">().notNull(),
    /** A domain change: the hostname; an account change: the account id. */
    ref: text("ref"),
    at: ts("at").notNull().defaultNow(),
    xid: xid8("xid")
      .notNull()
      .default(sql`pg_current_xact_id()`),
  },
  (t) => [index("drop_changes_xid_idx").on(t.xid), index("drop_changes_at_idx").on(t.at)],
);
