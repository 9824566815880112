import { z } from "zod";

// --- Counts (GET /drops/{slug}/stats) ---

const statsDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .describe("A UTC day, YYYY-MM-DD.");

export const statsQuerySchema = z.object({
  from: statsDay
    .optional()
    .describe("First UTC day, YYYY-MM-DD; default 6 days before `to`. Not before the plan's retention."),
  to: statsDay.optional().describe("Last UTC day, YYYY-MM-DD; default today."),
});

const statsTotals = {
  views: z.int().describe("GET answers of text/html with 200 or 304 to people (not bots or link previews)."),
  preview_views: z
    .int()
    .describe(
      "The part of views that came through preview hosts (<slug>---v<N>, <slug>---<alias>); already counted in views.",
    ),
  visitors: z
    .int()
    .describe(
      "Distinct visitors (per-day salted hash of address and user agent, never stored past its day); summed over days.",
    ),
  requests: z.int().describe("Every other request of people: assets, HEAD, redirects, errors."),
  bytes: z.int().describe("Body bytes sent for views and requests."),
  not_found: z.int().describe("Requests answered 404."),
};

const countedKey = <K extends string>(key: K, what: string) =>
  z
    .array(z.object({ [key]: z.string(), views: z.int() } as { [P in K]: z.ZodString } & { views: z.ZodInt }))
    .describe(what);

export const dropStatsSchema = z.object({
  slug: z.string(),
  from: z.string().describe("First day of the range (UTC)."),
  to: z.string().describe("Last day of the range (UTC)."),
  totals: z.object({
    ...statsTotals,
    bot_requests: z.int().describe("Requests from user agents the isbot package names; they count in no other figure."),
    previews: z
      .int()
      .describe(
        "Requests from link unfurlers (Slack, Discord, X, Facebook, LinkedIn, iMessage, Teams …); they count in no other figure.",
      ),
  }),
  days: z
    .array(z.object({ date: z.string(), ...statsTotals }))
    .describe("Every day of the range, oldest first; a day with nothing has zeros."),
  paths: countedKey("path", "The 20 most viewed paths (without query)."),
  referrers: countedKey("host", "The 20 referrer hosts with most views, lower-case; the drop's own hosts left out."),
  countries: countedKey(
    "code",
    "Views by ISO 3166 alpha-2 country code from a trusted proxy header (TRUST_PROXY), or unknown.",
  ),
});
export type DropStats = z.infer<typeof dropStatsSchema>;
