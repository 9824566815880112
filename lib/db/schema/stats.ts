import { bigint, date, index, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { drops } from "./drops";

// Counts of drops' traffic (lib/stats).

const count = (name: string) => bigint(name, { mode: "number" }).notNull().default(0);

/**
 * A drop's counts of one UTC day (lib/stats): each process adds up in memory and upserts one row
 * per drop and day at most every 10 s. The maps count views by request path, referrer host and
 * country code (the most viewed STATS_KEYS_KEPT of each). Nothing here names a visitor.
 */
export const dropStats = pgTable(
  "drop_stats",
  {
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    day: date("day", { mode: "string" }).notNull(),
    views: count("views"),
    /** The part of `views` that came through preview hosts (`<slug>---v<N>`, `<slug>---<alias>`). */
    previewViews: count("preview_views"),
    visitors: count("visitors"),
    requests: count("requests"),
    bytes: count("bytes"),
    notFound: count("not_found"),
    botRequests: count("bot_requests"),
    previews: count("previews"),
    paths: jsonb("paths").$type<Record<string, number>>().notNull().default({}),
    referrers: jsonb("referrers").$type<Record<string, number>>().notNull().default({}),
    countries: jsonb("countries").$type<Record<string, number>>().notNull().default({}),
  },
  (t) => [primaryKey({ columns: [t.dropId, t.day] }), index("drop_stats_day_idx").on(t.day)],
);
export type DropStatsRow = typeof dropStats.$inferSelect;

/**
 * The distinct visitors of a day still open: SHA-256 of the day's salt, the client address and
 * the user agent (never the address or agent themselves). Deleted once the day's count is final.
 */
export const dropStatsVisitors = pgTable(
  "drop_stats_visitors",
  {
    dropId: text("drop_id")
      .notNull()
      .references(() => drops.id, { onDelete: "cascade" }),
    day: date("day", { mode: "string" }).notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [primaryKey({ columns: [t.dropId, t.day, t.hash] }), index("drop_stats_visitors_day_idx").on(t.day)],
);

/** The random salt of each open day, shared by every process; deleted when its day is final. */
export const statsSalts = pgTable("stats_salts", {
  day: date("day", { mode: "string" }).primaryKey(),
  salt: text("salt").notNull(),
});
