import { NextResponse, type NextRequest } from "next/server";
import { FRAME_POLICY, OWN_POLICY_PATHS } from "./lib/csp";
import { env } from "./lib/env";
import { resolveHost } from "./lib/serve/host";
import { DROP_HOST_HEADER, SERVE_PREFIX, REWRITE_HEADER, rewriteToken } from "./lib/serve/internal";

// The host dispatcher (Next 16's middleware). Drop hosts are rewritten, on every path, to the
// internal serve route; on the app host that internal path does not exist. A request this
// proxy already rewrote carries a per-process token, so running it twice changes nothing.

export function proxy(req: NextRequest): NextResponse {
  if (req.headers.get(REWRITE_HEADER) === rewriteToken()) return NextResponse.next();
  const e = env();
  const action = resolveHost(req.headers.get("host"), {
    serveDomain: e.SERVE_DOMAIN,
    appHost: new URL(e.BASE_URL).host,
  });
  const { pathname } = req.nextUrl;
  if (action.kind !== "app") {
    const url = req.nextUrl.clone();
    url.pathname = `${SERVE_PREFIX}${pathname}`;
    const headers = new Headers(req.headers);
    headers.set(REWRITE_HEADER, rewriteToken());
    headers.set(DROP_HOST_HEADER, req.headers.get("host") ?? "");
    return NextResponse.rewrite(url, { request: { headers } });
  }
  if (pathname === SERVE_PREFIX || pathname.startsWith(`${SERVE_PREFIX}/`)) {
    return NextResponse.json({ error: "Not found.", code: "not_found" }, { status: 404 });
  }
  const res = NextResponse.next();
  // The app's own pages (dashboard with delete buttons and keys) are never framed by other sites.
  res.headers.set("X-Frame-Options", "DENY");
  if (!OWN_POLICY_PATHS.has(pathname)) res.headers.set("Content-Security-Policy", FRAME_POLICY);
  res.headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  res.headers.set("X-Content-Type-Options", "nosniff");
  return res;
}

// Next buffers the whole body of every request the proxy runs for (before the route's own cap
// applies), so requests with a body skip it: self-hosted, drop hosts never reach Next (server.mjs
// answers them first) and the app host's routes read their bodies under their own caps. On Vercel
// (every request carries x-vercel-id; server.mjs removes it elsewhere) the proxy runs for all
// requests, so drop hosts are rewritten whatever the method; the platform caps bodies at 4.5 MB.
export const config = {
  matcher: [
    {
      source: "/:path*",
      missing: [
        { type: "header", key: "content-length" },
        { type: "header", key: "transfer-encoding" },
      ],
    },
    { source: "/:path*", has: [{ type: "header", key: "x-vercel-id" }] },
  ],
};
