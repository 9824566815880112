// The pull request's one comment, as Markdown (pure). It starts with a hidden marker the Action
// finds it by. Every text that comes from the drop or the pull request (render problems, the
// page's title, branch names) stands inside a code span, one line, cut short, so no mention,
// tag, link, image or second marker can come from it; the URLs come from the dropsite API and
// are written only when they are plain http(s) URLs.

/** The first line of the comment: `<!-- dropsite-preview name=<name> -->` (a drop name is [a-z0-9-]). */
export const markerFor = (name: string) => `<!-- dropsite-preview name=${name} -->`;

/** Whether a comment's body is the Action's comment for this drop: the marker opens it. */
export const hasMarker = (body: string | undefined, name: string) => (body ?? "").startsWith(markerFor(name));

/** Longest text from elsewhere shown in one code span. */
const SPAN_CHARS = 200;
/** Problems listed per kind. */
const LISTED = 5;

/** Text as an inline code span: one line, at most SPAN_CHARS, fenced by more backticks than it holds. */
export function code(text: string): string {
  // eslint-disable-next-line no-control-regex
  let line = text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ").trim();
  if (line.length > SPAN_CHARS) line = `${line.slice(0, SPAN_CHARS - 1)}…`;
  if (!line) return "` `";
  const longest = Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = line.startsWith("`") || line.endsWith("`") || longest > 0 ? " " : "";
  return `${fence}${pad}${line}${pad}${fence}`;
}

/** A URL from the API when it is a plain http(s) URL (nothing Markdown could read as syntax), else null. */
export function safeUrl(url: string | null | undefined): string | null {
  if (!url || !/^https?:\/\/[^\s<>()[\]"'`|\\]+$/.test(url)) return null;
  try {
    return new URL(url).href === url || new URL(url).href === `${url}/` ? url : null;
  } catch {
    return null;
  }
}

const link = (url: string | null | undefined) => safeUrl(url) ?? "(none)";

/** The render object of a deploy answer, as much of it as the comment shows. */
export interface RenderSummary {
  status: string;
  reason?: string;
  hint?: string;
  title?: string;
  http_status?: number | null;
  blank?: boolean;
  page_errors?: string[];
  console_errors?: { text: string; location: string }[];
  failed_requests?: ({ url: string; status: number } | { url: string; error: string })[];
  screenshots?: { desktop: string | null; phone: string | null };
}

export interface PreviewFacts {
  name: string;
  number: number;
  branch: string;
  headSha: string;
  aliasUrl: string | null;
  version: number;
  versionUrl: string | null;
  liveUrl: string;
  render: RenderSummary | null;
  openComments: number;
}

function renderLines(r: RenderSummary | null): string[] {
  if (!r) return ["**Render check:** not asked for (`render-check: false`)."];
  if (r.status === "unavailable")
    return [`**Render check:** not run (${code(r.reason ?? "unavailable")}): ${code(r.hint ?? "")}`];
  const lines = [
    `**Render check:** ${code(r.status)}${r.http_status ? ` (HTTP ${r.http_status})` : ""}${r.title ? `, title ${code(r.title)}` : ""}`,
  ];
  const problems: string[] = [];
  if (r.blank) problems.push("- The page shows nothing (blank).");
  for (const e of (r.page_errors ?? []).slice(0, LISTED)) problems.push(`- Uncaught exception: ${code(e)}`);
  for (const e of (r.console_errors ?? []).slice(0, LISTED))
    problems.push(`- Console error: ${code(e.text)}${e.location ? ` at ${code(e.location)}` : ""}`);
  for (const f of (r.failed_requests ?? []).slice(0, LISTED))
    problems.push(`- Failed request: ${code(f.url)} (${"status" in f ? `HTTP ${f.status}` : code(f.error)})`);
  const more =
    Math.max(0, (r.page_errors ?? []).length - LISTED) +
    Math.max(0, (r.console_errors ?? []).length - LISTED) +
    Math.max(0, (r.failed_requests ?? []).length - LISTED);
  if (more > 0) problems.push(`- and ${more} more (GET /drops/{slug}/render has them all)`);
  if (problems.length) lines.push("", ...problems);
  const shot = safeUrl(r.screenshots?.desktop);
  if (shot) lines.push("", `![Desktop screenshot of the preview, 1280×800](${shot})`);
  return lines;
}

/** The comment while the pull request is open. */
export function previewComment(f: PreviewFacts): string {
  return [
    markerFor(f.name),
    `### dropsite preview of ${code(f.name)} for #${f.number}`,
    "",
    `Branch ${code(f.branch)} at ${code(f.headSha.slice(0, 12))}. The preview moves with every push; the live site is unchanged until the default branch deploys.`,
    "",
    `- **Preview:** ${link(f.aliasUrl)}`,
    `- **This version (${f.version}):** ${link(f.versionUrl)}`,
    `- **Live:** ${link(f.liveUrl)}`,
    `- **Open review comments:** ${f.openComments}`,
    "",
    ...renderLines(f.render),
  ].join("\n");
}

/** The comment once the pull request is closed and its preview deleted. */
export function closedComment(name: string, number: number, alias: string): string {
  return [
    markerFor(name),
    `### dropsite preview of ${code(name)} for #${number}`,
    "",
    `The pull request was closed, so its preview ${code(alias)} is gone (the alias was deleted). The versions it showed stay in the drop's history while its plan keeps them.`,
  ].join("\n");
}
