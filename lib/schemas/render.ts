import { z } from "zod";

// The render object (DESIGN "Render check"): GET and POST /drops/{slug}/render answer it bare,
// deploys asked with ?render=1 (and the MCP deploy tools with render_check) carry it as `render`,
// where it can also say why no check ran.

export const renderResultSchema = z.object({
  status: z
    .enum(["ok", "problems", "failed"])
    .describe(
      "problems: any console error, page error, failed request or a blank page; failed: the page did not load.",
    ),
  url: z
    .url()
    .describe(
      "The URL opened: the drop's live version; for a staged deploy (promote=false), that version's version_url.",
    ),
  http_status: z.int().nullable().describe("The main document's status; null when none came (network error, timeout)."),
  title: z.string(),
  load_ms: z.int().nullable().describe("Milliseconds to the load event at the desktop size; null when it never came."),
  console_errors: z.array(z.object({ text: z.string(), location: z.string() })),
  page_errors: z.array(z.string()).describe("Uncaught exceptions."),
  failed_requests: z.array(
    z.union([z.object({ url: z.string(), status: z.int() }), z.object({ url: z.string(), error: z.string() })]),
  ),
  blank: z.boolean().describe("Nothing visible: no text, image, media, form control or background image."),
  screenshots: z
    .object({ desktop: z.url().nullable(), phone: z.url().nullable() })
    .describe(
      "Viewport PNGs (1280×800 and 390×844), public at unguessable URLs until a newer check or the drop's deletion.",
    ),
});
export type RenderResult = z.infer<typeof renderResultSchema>;

export const renderUnavailableSchema = z.object({
  status: z.literal("unavailable"),
  reason: z
    .enum(["no_browser", "rate_limited", "browser_error"])
    .describe("no_browser: the server has none set up; rate_limited: the caller's render checks per hour are spent."),
  retry_after: z.int().optional().describe("rate_limited: seconds until a check is allowed again."),
  hint: z.string(),
});
export type RenderUnavailable = z.infer<typeof renderUnavailableSchema>;

/** `render` in a deploy answer. */
export const deployRenderSchema = z
  .union([renderResultSchema, renderUnavailableSchema])
  .describe("With ?render=1 (MCP: render_check): the page as a real browser saw it, or why no check ran.");
export type DeployRender = z.infer<typeof deployRenderSchema>;
/** What a render check found: the render object less its screenshot URLs (stored per drop). */
export type RenderFindings = Omit<RenderResult, "screenshots">;
