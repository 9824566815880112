import { z } from "zod";
import { limits } from "../../plans";
import { dropStatsSchema, type DropStats } from "../../schemas";
import { getDropStats } from "../../stats/read";
import { accountCaller, tool, type ToolCall } from "./define";

// The MCP tool get_drop_stats: a drop's counts, as GET /drops/{slug}/stats answers them.

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .optional();

const getDropStatsArgs = z
  .strictObject({
    slug: z.string().min(1).max(100).describe("The slug of the drop (list_drops shows them)."),
    from: day.describe("First UTC day, YYYY-MM-DD; default 6 days before `to`."),
    to: day.describe("Last UTC day, YYYY-MM-DD; default today."),
  })
  .meta({ examples: [{ slug: "k3j9x2ab" }, { slug: "k3j9x2ab", from: "2026-01-01", to: "2026-01-31" }] });

/** The text an agent relays: the totals, then the busiest paths and referrers. */
function statsText(s: DropStats): string {
  const t = s.totals;
  const list = (items: [string, number][]) =>
    items
      .slice(0, 5)
      .map(([key, views]) => `${key} (${views})`)
      .join(", ") || "none";
  return [
    `${s.slug}, ${s.from} to ${s.to} (UTC): ${t.views} views by ${t.visitors} visitors (${t.preview_views} of the views through preview hosts); ${t.requests} other requests, ${t.bytes} bytes sent, ${t.not_found} not found; ${t.bot_requests} bot requests and ${t.previews} link previews (counted apart).`,
    `Top paths: ${list(s.paths.map((p) => [p.path, p.views]))}.`,
    `Top referrers: ${list(s.referrers.map((r) => [r.host, r.views]))}.`,
    ...(s.countries.length ? [`Countries: ${list(s.countries.map((c) => [c.code, c.views]))}.`] : []),
  ].join("\n");
}

const getDropStatsTool = {
  name: "get_drop_stats",
  title: "Show a drop's visits",
  description:
    "Counts of one of the account's drops per UTC day: views (HTML pages opened; preview_views is the part of them on preview hosts, <slug>---v<N> and <slug>---<alias>), distinct visitors, other requests, bytes, 404s, and apart from those bot requests and link previews (Slack, Discord, X, iMessage …), with the top paths, referrer hosts and countries. " +
    `Default range: the last 7 days. Counts are kept ${limits.free.statsRetentionDays} days on free, ${limits.pro.statsRetentionDays} on pro, ${limits.team.statsRetentionDays} on team. No script or cookie is involved; nothing names a visitor. Requires a key.`,
  input: getDropStatsArgs,
  output: dropStatsSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args: z.infer<typeof getDropStatsArgs>, call: ToolCall) {
    const c = await accountCaller(call);
    const s = await getDropStats(call.ctx, c.account, args.slug, { from: args.from, to: args.to });
    return { structured: s, text: statsText(s) };
  },
};

export const statsTools = [tool(getDropStatsTool)];
