import type { DeployRender } from "../schemas";

// The render check in a few lines of text: the MCP deploy tools' text and the CLI's
// `dropsite deploy --check` print the same (this file imports nothing of the server).

/** Entries of each kind the text names; the render object has them all. */
const TEXT_ENTRIES = 5;

/** The render check as lines of text; `where` names the place that has every entry. */
export function renderLines(r: DeployRender, where = "structuredContent.render"): string[] {
  if (r.status === "unavailable") return [`Render check not run (${r.reason}): ${r.hint}`];
  const lines = [
    r.status === "ok"
      ? `Render check: ok in a real browser (HTTP ${r.http_status}, loaded in ${r.load_ms} ms, title "${r.title}").`
      : r.status === "failed"
        ? `Render check: FAILED, the page did not load${r.http_status ? ` (HTTP ${r.http_status})` : ""}.`
        : `Render check: PROBLEMS seen in a real browser (HTTP ${r.http_status}).`,
  ];
  if (r.blank) lines.push("The page shows nothing (blank).");
  for (const e of r.page_errors.slice(0, TEXT_ENTRIES)) lines.push(`Uncaught exception: ${e}`);
  for (const e of r.console_errors.slice(0, TEXT_ENTRIES))
    lines.push(`Console error: ${e.text}${e.location ? ` (${e.location})` : ""}`);
  for (const f of r.failed_requests.slice(0, TEXT_ENTRIES))
    lines.push(`Failed request: ${f.url} (${"status" in f ? f.status : f.error})`);
  const more =
    Math.max(0, r.page_errors.length - TEXT_ENTRIES) +
    Math.max(0, r.console_errors.length - TEXT_ENTRIES) +
    Math.max(0, r.failed_requests.length - TEXT_ENTRIES);
  if (more > 0) lines.push(`${more} more in ${where}.`);
  if (r.screenshots.desktop)
    lines.push(`Screenshots: ${r.screenshots.desktop} (desktop), ${r.screenshots.phone ?? "–"} (phone).`);
  return lines;
}
