import { redeemMemberToken } from "./member-token";
import type { AppContext } from "../context";
import { findDropAccess } from "../db/access";
import { withDb } from "../db/errors";
import { gateHeaders, safeReturnPath, unlockCookieFor } from "./access";
import type { Manifest } from "./cache";
import type { ServeRequest, ServeResult } from "./types";

// The drop host's side of a members-only drop (DESIGN "Teams"): a visitor without the drop's
// unlock cookie is sent to the app host (BASE_URL/access/members), which knows who is logged in
// and whether they are a member of the owning team; a member comes back to the unlock path with
// a one-time token, spent here for the same host-only cookie a password sets. Nothing of the
// drop is in any of these answers.

/**
 * Where the app host checks membership, for a visitor of this drop coming back to `returnTo`;
 * a visitor on another of the drop's hosts than its slug's (a vanity host, a custom domain) also
 * names that host, for the app host to send them back to (after checking it is the drop's).
 */
function membersEntryUrl(ctx: AppContext, slug: string, returnTo: string, req: ServeRequest): string {
  const q = new URLSearchParams({ drop: slug, return: safeReturnPath(returnTo) });
  const host = (req.headers.get("host") ?? "").toLowerCase();
  if (host && host !== `${slug}.${ctx.env.SERVE_DOMAIN}`.toLowerCase()) q.set("host", host);
  return `${ctx.env.BASE_URL.replace(/\/$/, "")}/access/members?${q.toString()}`;
}

/** 302 to the app host's membership check; never stored by any cache. */
export function membersRedirect(ctx: AppContext, m: Manifest, req: ServeRequest): ServeResult {
  return {
    status: 302,
    headers: {
      Location: membersEntryUrl(ctx, m.drop.slug, req.pathname + (req.search ?? ""), req),
      "Content-Length": "0",
      ...gateHeaders(),
    },
    body: null,
  };
}

const STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;color:#1f2328;background:#f6f8fa}" +
  "main{max-width:30rem;padding:1.5rem}h1{font-size:1.4rem;margin:0 0 .5rem}a{color:#0b57d0}a:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}";

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The page of a token that cannot be used (spent, expired, for another drop, or a policy since changed). */
function refusedToken(again: string): ServeResult {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>Sign-in link expired</title><style>${STYLE}</style></head><body><main>` +
    `<h1>This sign-in link can no longer be used</h1><p>It was used already, has expired or was made for another site.</p>` +
    `<p><a href="${escapeHtml(again)}">Sign in to this site again</a></p></main></body></html>`;
  const body = new TextEncoder().encode(html);
  return {
    status: 403,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": String(body.byteLength),
      "Content-Security-Policy":
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
      ...gateHeaders(),
    },
    body,
  };
}

// GET /.well-known/dropsite/unlock?token=…&return=… on a members-only drop's host.
export async function unlockWithToken(ctx: AppContext, m: Manifest, req: ServeRequest): Promise<ServeResult> {
  const q = new URLSearchParams(req.search ?? "");
  const returnTo = safeReturnPath(q.get("return") ?? "/");
  // The policy as it is now, never a cached copy: a member removed a moment ago is out.
  const access = await withDb(() => findDropAccess(ctx.db, m.drop.id));
  const token = q.get("token") ?? "";
  if (!access || access.accessMode !== "members" || !(await redeemMemberToken(ctx, token, access)))
    return refusedToken(membersEntryUrl(ctx, m.drop.slug, returnTo, req));
  return {
    status: 302,
    headers: {
      Location: returnTo,
      "Content-Length": "0",
      ...gateHeaders(),
      "Set-Cookie": unlockCookieFor(ctx, access, req),
    },
    body: null,
  };
}
