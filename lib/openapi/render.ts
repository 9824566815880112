import { z } from "zod";
import { limits, RENDER_HARD_STOP_MS, RENDER_VIEWPORT_WAIT_MS } from "../plans";
import { renderResultSchema, renderUnavailableSchema } from "../schemas";
import { VIEWPORTS } from "../render/check";
import { anyCredential, jsonResponse, slugPath, type Resource } from "./operation";

// The render check (lib/render): a drop's live version opened in a real browser, its latest
// result, and the screenshots' public URLs.

const rates = `${limits.anonymous.renderChecksPerHour} an hour per address (anonymous), ${limits.free.renderChecksPerHour} (free), ${limits.pro.renderChecksPerHour} (pro), ${limits.team.renderChecksPerHour} (team)`;

/** ?render=1 on the deploy routes. */
export const renderQuery = z
  .enum(["1", "0", "true", "false"])
  .optional()
  .describe(
    `1: open the version this deploy made in a real browser (a staged one, promote=false, at its version_url) and add \`render\` to the answer (render checks: ${rates}; past it, or without a browser on the server, \`render\` says unavailable and the deploy still succeeds).`,
  );

const how = `Headless Chromium opens the drop's URL at ${VIEWPORTS.desktop.width}×${VIEWPORTS.desktop.height} and ${VIEWPORTS.phone.width}×${VIEWPORTS.phone.height} (device scale 1), waits for load and network idle (at most ${RENDER_VIEWPORT_WAIT_MS / 1000} s per size; the whole check stops at ${RENDER_HARD_STOP_MS / 1000} s), and collects console errors, uncaught exceptions, failed requests and whether the page shows nothing. The browser reaches only the drop's own hosts and public addresses. A protected drop is checked as a visitor without its password sees it.`;

export const render = {
  tag: "drops",
  schemas: { Render: renderResultSchema, RenderUnavailable: renderUnavailableSchema },
  paths: () => ({
    "/drops/{slug}/render": {
      get: {
        operationId: "getDropRender",
        summary: "The drop's latest render check",
        description: "404 not_found before the drop was first checked.",
        security: anyCredential,
        requestParams: { path: slugPath },
        responses: { 200: jsonResponse(renderResultSchema) },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
      post: {
        operationId: "checkDropRender",
        summary: "Check the drop's live version in a real browser now",
        description: `${how} Synchronous; the result becomes the drop's latest and replaces its screenshots. Render checks: ${rates}, then 429. Without a browser on the server: 503 upstream_unavailable with a hint.`,
        security: anyCredential,
        requestParams: { path: slugPath },
        responses: { 200: jsonResponse(renderResultSchema) },
        errors: ["auth_required", "not_found", "rate_limited", "upstream_unavailable"],
      },
    },
    "/previews/{file}": {
      get: {
        operationId: "getRenderScreenshot",
        summary: "A render check's screenshot (PNG)",
        description:
          "Public to anyone with the URL (an unguessable id), cached as immutable; 404 once a newer check replaced it or the drop is gone.",
        security: [{}],
        requestParams: {
          path: z.object({
            file: z
              .string()
              .regex(/^[0-9a-f]{32}\.png$/)
              .describe("<id>.png"),
          }),
        },
        responses: {
          200: {
            description: "The PNG.",
            content: { "image/png": { schema: z.string().meta({ contentMediaType: "image/png" }) } },
          },
        },
        errors: ["not_found", "upstream_unavailable"],
      },
    },
  }),
} satisfies Resource;
