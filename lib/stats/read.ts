import type { AppContext } from "../context";
import { ApiError } from "../errors";
import { withDb } from "../db/errors";
import { dayRows } from "../db/stats";
import type { AccountRow } from "../db/schema";
import { ownedDrop } from "../drops/manage";
import { limits, type Plan } from "../plans";
import { statsQuerySchema, type DropStats } from "../schemas";
import { utcDay } from "./collector";

// Reading a drop's counts back (GET /drops/{slug}/stats, the MCP tool get_drop_stats, the CLI,
// the dashboard): the days of a range within the plan's retention, their totals, and the most
// viewed paths, referrer hosts and countries of the range.

const DAY_MS = 86_400_000;
/** Entries listed of paths, referrers and countries. */
const TOP = 20;

const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);

function validDay(day: string): boolean {
  const ms = dayMs(day);
  return Number.isFinite(ms) && utcDay(ms) === day;
}

/** The range a query asks for: default the last 7 days (today and the 6 before), within the retention. */
function statsRange(now: number, plan: Plan, query: { from?: unknown; to?: unknown }): { from: string; to: string } {
  const retentionDays = limits[plan].statsRetentionDays;
  const parsed = statsQuerySchema.safeParse({ from: query.from ?? undefined, to: query.to ?? undefined });
  const bad = (message: string) =>
    new ApiError("invalid_request", message, { hint: "Dates are UTC days written YYYY-MM-DD, from ≤ to ≤ today." });
  if (!parsed.success) throw bad("from and to must be dates written YYYY-MM-DD.");
  const today = utcDay(now);
  const { from: f, to: t } = parsed.data;
  if ((f !== undefined && !validDay(f)) || (t !== undefined && !validDay(t)))
    throw bad("from and to must be real calendar days, YYYY-MM-DD.");
  const to = t ?? today;
  if (to > today) throw bad(`to (${to}) is after today (${today}, UTC).`);
  const oldest = utcDay(dayMs(today) - (retentionDays - 1) * DAY_MS);
  const from = f ?? (utcDay(dayMs(to) - 6 * DAY_MS) < oldest ? oldest : utcDay(dayMs(to) - 6 * DAY_MS));
  if (from > to) throw bad(`from (${from}) is after to (${to}).`);
  if (from < oldest)
    throw new ApiError(
      "invalid_request",
      `This plan keeps counts of ${retentionDays} days: from must be ${oldest} or later.`,
      {
        hint: "A plan with a longer retention reads further back.",
        details: { limit: "stats_retention_days", allowed: retentionDays, plan },
        upgrade: true,
      },
    );
  return { from, to };
}

function top(maps: Record<string, number>[], field: "path" | "host" | "code") {
  const sum = new Map<string, number>();
  for (const m of maps) for (const [k, n] of Object.entries(m)) sum.set(k, (sum.get(k) ?? 0) + Number(n));
  return [...sum]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, TOP)
    .map(([k, views]) => ({ [field]: k, views }));
}

// GET /drops/{slug}/stats
export async function getDropStats(
  ctx: AppContext,
  account: AccountRow,
  slug: unknown,
  query: { from?: unknown; to?: unknown },
): Promise<DropStats> {
  const drop = await ownedDrop(ctx, account, slug);
  const { from, to } = statsRange(ctx.now(), account.plan, query);
  const rows = await withDb(() => dayRows(ctx.db, drop.id, from, to));
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const days: DropStats["days"] = [];
  for (let ms = dayMs(from); ms <= dayMs(to); ms += DAY_MS) {
    const r = byDay.get(utcDay(ms));
    days.push({
      date: utcDay(ms),
      views: r?.views ?? 0,
      preview_views: r?.previewViews ?? 0,
      visitors: r?.visitors ?? 0,
      requests: r?.requests ?? 0,
      bytes: r?.bytes ?? 0,
      not_found: r?.notFound ?? 0,
    });
  }
  const total = (pick: (r: (typeof rows)[number]) => number) => rows.reduce((n, r) => n + pick(r), 0);
  return {
    slug: drop.slug,
    from,
    to,
    totals: {
      views: total((r) => r.views),
      preview_views: total((r) => r.previewViews),
      visitors: total((r) => r.visitors),
      requests: total((r) => r.requests),
      bytes: total((r) => r.bytes),
      not_found: total((r) => r.notFound),
      bot_requests: total((r) => r.botRequests),
      previews: total((r) => r.previews),
    },
    days,
    paths: top(
      rows.map((r) => r.paths),
      "path",
    ) as DropStats["paths"],
    referrers: top(
      rows.map((r) => r.referrers),
      "host",
    ) as DropStats["referrers"],
    countries: top(
      rows.map((r) => r.countries),
      "code",
    ) as DropStats["countries"],
  };
}
