import type { AppContext } from "../context";
import { errorResponse } from "../errors";
import { resolveHost } from "./host";
import { SERVE_PREFIX } from "./internal";
import { serveDrop, notFoundPage } from "./serve";
import { vanityLookup } from "../vanity";

/**
 * Serves a request that reached the internal serve route. The host is resolved again here:
 * on the app host this route does not exist.
 */
export async function serveRequest(ctx: AppContext, req: Request): Promise<Response> {
  try {
    const action = resolveHost(req.headers.get("host"), { serveDomain: ctx.env.SERVE_DOMAIN, appHost: new URL(ctx.env.BASE_URL).host });
    if (action.kind === "app") return notFoundPage();
    let pathname = new URL(req.url).pathname;
    if (pathname === SERVE_PREFIX || pathname.startsWith(`${SERVE_PREFIX}/`)) pathname = pathname.slice(SERVE_PREFIX.length) || "/";
    return await serveDrop(ctx, action, { method: req.method, pathname, headers: req.headers }, vanityLookup);
  } catch (err) {
    return errorResponse(err);
  }
}

export { serveDrop, resolveHost };
