import type { AppContext } from "../context";
import { ApiError } from "../errors";
import { readBodyCapped } from "../http";
import { resolveHost } from "./host";
import { SERVE_PREFIX } from "./internal";
import { notFoundPage } from "./pages";
import { serveDrop } from "./serve";

/**
 * Serves a request that reached the internal serve route (Vercel: proxy.ts rewrites drop hosts
 * there). The host is resolved again here: on the app host this route does not exist.
 */
export async function serveRequest(ctx: AppContext, req: Request): Promise<Response> {
  const action = resolveHost(req.headers.get("host"), {
    serveDomain: ctx.env.SERVE_DOMAIN,
    appHost: new URL(ctx.env.BASE_URL).host,
  });
  if (action.kind === "app") {
    const r = notFoundPage();
    return new Response(r.body as BodyInit, { status: r.status, headers: r.headers });
  }
  const url = new URL(req.url);
  let pathname = url.pathname;
  if (pathname === SERVE_PREFIX || pathname.startsWith(`${SERVE_PREFIX}/`))
    pathname = pathname.slice(SERVE_PREFIX.length) || "/";
  return serveDrop(ctx, action, {
    method: req.method,
    pathname,
    search: url.search,
    headers: req.headers,
    readBody: (cap) => readCapped(req, cap),
  });
}

/** The body up to `cap` bytes, or "too_large" (a larger declared length is refused unread). */
async function readCapped(req: Request, cap: number): Promise<Uint8Array | "too_large"> {
  const tooLarge = new ApiError("payload_too_large", "too large");
  try {
    return await readBodyCapped(req, cap, () => tooLarge);
  } catch (err) {
    if (err === tooLarge) return "too_large";
    throw err;
  }
}
