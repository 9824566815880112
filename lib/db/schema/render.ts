import { jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { RenderFindings } from "../../schemas";
import { ts } from "./columns";
import { drops } from "./drops";

// Render checks (lib/render).

/**
 * The latest render check of each drop (lib/render): what a real browser saw, and its two
 * viewport screenshots, kept in storage under the drop's prefix (`<drop id>/previews/<id>.png`)
 * and served at BASE_URL/previews/<id>.png, the ids random (unguessable). A newer check replaces
 * the row and its screenshots; deleting the drop deletes both.
 */
export const renderChecks = pgTable(
  "render_checks",
  {
    dropId: text("drop_id")
      .primaryKey()
      .references(() => drops.id, { onDelete: "cascade" }),
    /** The render object without its screenshot URLs (they are made from the ids below). */
    result: jsonb("result").$type<RenderFindings>().notNull(),
    desktopId: text("desktop_id"),
    desktopRef: text("desktop_ref"),
    phoneId: text("phone_id"),
    phoneRef: text("phone_ref"),
    checkedAt: ts("checked_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("render_checks_desktop_idx").on(t.desktopId),
    uniqueIndex("render_checks_phone_idx").on(t.phoneId),
  ],
);
export type RenderCheckRow = typeof renderChecks.$inferSelect;
