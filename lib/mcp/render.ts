import type { AppContext } from "../context";
import type { Caller } from "../auth/caller";
import { clientAddress } from "../ratelimit/address";
import { mcpImage, renderForDeploy, renderSubject } from "../render/service";
import type { DeployRender } from "../schemas";
import { renderLines } from "../render/text";

// render_check on the MCP deploy tools: the deploy's answer gains `render` (as ?render=1 gives
// REST), its text a summary an agent can act on, and the result the desktop screenshot as an
// MCP image content block (PNG, at most RENDER_MCP_IMAGE_BYTES).

/** An image content block of a tool result. */
export interface ImageBlock {
  type: "image";
  data: string;
  mimeType: "image/png";
}

/** A deploy tool's output with the render check added when `wanted`. */
export async function withToolRender<T extends { slug: string; promoted?: boolean; version_url?: string | null }>(
  call: { ctx: AppContext; req: Request; caller: Caller },
  wanted: boolean | undefined,
  out: { structured: T; text: string },
): Promise<{ structured: T | (T & { render: DeployRender }); text: string; image?: ImageBlock }> {
  if (!wanted) return out;
  const subject = renderSubject(call.caller.account, clientAddress(call.req, call.ctx.env));
  const { render, desktopPng } = await renderForDeploy(call.ctx, out.structured, subject);
  const data = mcpImage(desktopPng);
  return {
    structured: { ...out.structured, render },
    text: [out.text, ...renderLines(render)].join("\n"),
    ...(data ? { image: { type: "image" as const, data, mimeType: "image/png" as const } } : {}),
  };
}
