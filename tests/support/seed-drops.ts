import { sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";

// A Team account's worth of drops in one statement (generate_series), for the drops list's tests
// and measurements; rows without files. Drop i (1-based) has slug seededSlug(i, prefix), name
// site-<i> on even i (odd ones are unnamed), was created i minutes before `now` and updated 2i
// minutes before it, expired a day ago on every 10th, and is password-protected on every 7th.

export const SEEDED_DROPS = 20_000;

/** A slug is 20 of [a-z2-7] (lib/input.ts): the number's decimal digits are written as k…t. */
const DIGITS = "klmnopqrst";

export function seededSlug(i: number, prefix = "seed"): string {
  const digits = [...String(i).padStart(5, "0")].map((d) => DIGITS[Number(d)]).join("");
  return `${prefix}${"y".repeat(20 - prefix.length - 5)}${digits}`;
}

/** `prefix` (lowercase letters) starts every id and slug, so more than one account can be seeded. */
export async function seedDrops(
  db: Pick<Db, "execute">,
  ownerId: string,
  now: Date,
  { count = SEEDED_DROPS, prefix = "seed" }: { count?: number; prefix?: string } = {},
) {
  const at = now.toISOString();
  await db.execute(sql`
    insert into drops (id, slug, owner_id, name, file_count, total_bytes, created_at, updated_at, expires_at, purge_at, access_mode)
    select
      ${`drp_${prefix}_`} || g,
      ${prefix} || repeat('y', ${20 - 5}::int - length(${prefix})) || translate(lpad(g::text, 5, '0'), '0123456789', ${DIGITS}),
      ${ownerId},
      case when g % 2 = 0 then 'site-' || g end,
      0,
      0,
      ${at}::timestamptz - g * interval '1 minute',
      ${at}::timestamptz - g * interval '2 minutes',
      case when g % 10 = 0 then ${at}::timestamptz - interval '1 day' else ${at}::timestamptz + interval '30 days' end,
      case when g % 10 = 0 then ${at}::timestamptz + interval '6 days' else ${at}::timestamptz + interval '37 days' end,
      case when g % 7 = 0 then 'password' else 'public' end
    from generate_series(1, ${count}::int) g`);
  await db.execute(sql`analyze drops`);
}

/** Views a seeded drop has in the 7 days ending on `now`'s day, as seedViews writes them. */
export function seededViews(i: number): number {
  return i % 3 === 0 ? 7 * (i % 97) : 0;
}

/**
 * drop_stats rows for the drops seedDrops wrote: every 3rd drop i has i % 97 views on each of the
 * 7 days ending on `now`'s day (seededViews), and 1,000 × (i % 5) on the day before those, which
 * the 7-day count must leave out.
 */
export async function seedViews(
  db: Pick<Db, "execute">,
  now: Date,
  { count = SEEDED_DROPS, prefix = "seed" }: { count?: number; prefix?: string } = {},
) {
  const day = now.toISOString().slice(0, 10);
  await db.execute(sql`
    insert into drop_stats (drop_id, day, views)
    select
      ${`drp_${prefix}_`} || g,
      ${day}::date - back,
      case when back < 7 then g % 97 else 1000 * (g % 5) end
    from generate_series(3, ${count}::int, 3) g, generate_series(0, 7) back`);
  await db.execute(sql`analyze drop_stats`);
}
