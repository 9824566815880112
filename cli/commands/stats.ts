import type { components } from "../../client";
import { answer, apiClient } from "../core/api";
import { requireKey, type Command } from "../core/command";
import { CliError, EXIT } from "../core/errors";

// `dropsite stats <slug> [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json]`: a drop's counts
// (GET /drops/{slug}/stats).

const STATS_COMMAND = {
  usage: "dropsite stats <slug> [--from YYYY-MM-DD] [--to YYYY-MM-DD]",
  about: `A drop's views (and how many came through preview hosts), visitors, requests, bytes and
  404s per UTC day (default the last 7 days), with bot requests and link previews apart, and its
  top paths, referrers and countries.
  --from, --to   the first and last UTC day (within your plan's retention)`,
} as const;

interface StatsIo {
  /** GET /drops/{slug}/stats for the range, its JSON answer (errors thrown as the CLI's own). */
  get(slug: string, range: { from?: string; to?: string }): Promise<components["schemas"]["DropStats"]>;
  /** A usage error (exit code 2). */
  usage(message: string): Error;
  out(text: string): void;
}

const table = (head: string[], rows: string[][]): string => {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const fmt = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join("  ");
  return [fmt(head), ...rows.map(fmt)].join("\n");
};

async function runStats(
  args: string[],
  flags: { from?: string; to?: string; json: boolean },
  io: StatsIo,
): Promise<void> {
  const [slug] = args;
  if (args.length !== 1 || slug === undefined) throw io.usage(`usage: ${STATS_COMMAND.usage}`);
  const s = await io.get(slug, { from: flags.from, to: flags.to });
  if (flags.json) return io.out(`${JSON.stringify(s, null, 2)}\n`);
  const t = s.totals;
  const lines = [
    `${s.slug}: ${s.from} to ${s.to} (UTC)`,
    `Views ${t.views} (${t.preview_views} on preview hosts) · visitors ${t.visitors} · other requests ${t.requests} · bytes ${t.bytes} · not found ${t.not_found} · bots ${t.bot_requests} · link previews ${t.previews}`,
    "",
    table(
      ["DATE", "VIEWS", "ON PREVIEWS", "VISITORS", "REQUESTS", "BYTES", "NOT FOUND"],
      s.days.map((d) => [d.date, d.views, d.preview_views, d.visitors, d.requests, d.bytes, d.not_found].map(String)),
    ),
  ];
  const lists: [string, string[][]][] = [
    ["PATH", s.paths.map((p) => [p.path, String(p.views)])],
    ["REFERRER", s.referrers.map((r) => [r.host, String(r.views)])],
    ["COUNTRY", s.countries.map((c) => [c.code, String(c.views)])],
  ];
  for (const [title, rows] of lists) if (rows.length > 0) lines.push("", table([title, "VIEWS"], rows));
  io.out(`${lines.join("\n")}\n`);
}

export const stats: Command = {
  ...STATS_COMMAND,
  run(target, args, flags) {
    requireKey(target);
    return runStats(args, flags, {
      get: (slug, query) => answer(apiClient(target).GET("/drops/{slug}/stats", { params: { path: { slug }, query } })),
      usage: (m) => new CliError(m, EXIT.usage),
      out: (text) => process.stdout.write(text),
    });
  },
};
