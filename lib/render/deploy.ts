import type { AppContext } from "../context";
import { ApiError } from "../errors";
import { optionalCaller } from "../auth/caller";
import { clientAddress } from "../ratelimit/address";
import type { DeployRender } from "../schemas";
import type { AccountRow } from "../db/schema";
import { renderForDeploy, renderSubject } from "./service";

// ?render=1 on the deploy routes (POST /deploy, POST /deploy/{slug}): the answer gains `render`,
// the version the deploy made as a real browser saw it (a staged one at its version URL). The deploy stands whatever the check finds;
// a check that cannot run (no browser, rate spent) says so in `render` instead.

/** Whether the request asks for a render check: render=1|true on, 0|false|absent off, anything else 400 (before any deploy work). */
export function wantsRender(req: Request): boolean {
  const v = new URL(req.url).searchParams.get("render");
  if (v === null || v === "0" || v === "false") return false;
  if (v === "1" || v === "true") return true;
  throw new ApiError("invalid_request", "render must be 1 (check the drop in a browser) or 0.", {
    details: { field: "render" },
    docs: "render-check",
  });
}

/**
 * The deploy answer with its `render` when asked for. The check is counted against the caller
 * (the request's credential, or `as`: a one-time grant's issuer) and its address.
 */
export async function withRender<T extends { slug: string; promoted?: boolean; version_url?: string | null }>(
  ctx: AppContext,
  req: Request,
  wanted: boolean,
  answer: T,
  as?: { account: AccountRow | null },
): Promise<T | (T & { render: DeployRender })> {
  if (!wanted) return answer;
  const caller = as ?? (await optionalCaller(ctx, req).catch(() => null));
  const subject = renderSubject(caller?.account ?? null, clientAddress(req, ctx.env));
  const { render } = await renderForDeploy(ctx, answer, subject);
  return { ...answer, render };
}
