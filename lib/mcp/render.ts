import type { AppContext } from "../context";
import { optionalCaller } from "../auth/caller";
import { clientAddress } from "../ratelimit/address";
import { mcpImage, renderForDeploy, renderSubject } from "../render/service";
import type { DeployRender } from "../render/schema";

// render_check on the MCP deploy tools: the deploy's answer gains `render` (as ?render=1 gives
// REST), its text a summary an agent can act on, and the result the desktop screenshot as an
// MCP image content block (PNG, at most RENDER_MCP_IMAGE_BYTES).

/** An image content block of a tool result. */
export interface ImageBlock {
  type: "image";
  data: string;
  mimeType: "image/png";
}

/** Entries of each kind the text names; structuredContent.render has them all. */
const TEXT_ENTRIES = 5;

/** The render check in a few lines of the tool's text. */
export function renderLines(r: DeployRender): string[] {
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
  if (more > 0) lines.push(`${more} more in structuredContent.render.`);
  if (r.screenshots.desktop)
    lines.push(`Screenshots: ${r.screenshots.desktop} (desktop), ${r.screenshots.phone ?? "–"} (phone).`);
  return lines;
}

/** A deploy tool's output with the render check added when `wanted`. */
export async function withToolRender<T extends { slug: string }>(
  call: { ctx: AppContext; req: Request },
  wanted: boolean | undefined,
  out: { structured: T; text: string },
): Promise<{ structured: T | (T & { render: DeployRender }); text: string; image?: ImageBlock }> {
  if (!wanted) return out;
  const caller = await optionalCaller(call.ctx, call.req).catch(() => null);
  const subject = renderSubject(caller?.account ?? null, clientAddress(call.req, call.ctx.env));
  const { render, desktopPng } = await renderForDeploy(call.ctx, out.structured.slug, subject);
  const data = mcpImage(desktopPng);
  return {
    structured: { ...out.structured, render },
    text: [out.text, ...renderLines(render)].join("\n"),
    ...(data ? { image: { type: "image" as const, data, mimeType: "image/png" as const } } : {}),
  };
}
