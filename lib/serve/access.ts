import { accessCookie, hasAccess } from "../access/cookie";
import { verifyPassword } from "../access/password";
import type { AppContext } from "../context";
import { findDropAccess } from "../db/access";
import { ApiError } from "../errors";
import { ACCESS_PASSWORD_MAX_CHARS, ACCESS_UNLOCK_BODY_BYTES } from "../plans";
import { clientAddress } from "../ratelimit/address";
import { checkLimit, enforceLimit } from "../ratelimit/guard";
import { passwordChars } from "../schemas";
import type { Manifest } from "./cache";
import { canonicalHost } from "./host";
import { reportLinkHtml } from "./disabled";
import type { ServeRequest, ServeResult } from "./types";

// The one access gate of the serve path. A password-protected drop answers every request (any
// path, any method the serve path takes) with the lock page unless the request carries an
// unlock cookie for this drop at its current policy version: the gate runs after the drop is
// known and before any of its files is looked up, so a locked answer carries nothing of the
// drop (no bytes, sizes, ETags, ranges or redirects). The form posts to UNLOCK_PATH on the same
// host; the right password answers 303 back to the page with the cookie (lib/access/cookie.ts).

export const UNLOCK_PATH = "/.well-known/dropsite/unlock";

/** Whether the drop is behind the gate: a password, or its team's members only (lib/serve/members.ts). */
export function isProtected(m: Manifest): boolean {
  return m.drop.accessMode !== "public";
}

/** Whether a request to a protected drop carries a cookie that unlocks it now. */
export function isUnlocked(ctx: AppContext, m: Manifest, req: ServeRequest): boolean {
  return hasAccess(
    ctx.env,
    req.headers.get("cookie"),
    m.drop.id,
    m.drop.accessPolicyVersion,
    ctx.now(),
    canonicalHost(req.headers.get("host")),
  );
}

export const GATE_STYLE =
  "*{box-sizing:border-box}body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;color:#1f2328;background:#f6f8fa}" +
  "main{width:100%;max-width:24rem;padding:1.5rem}h1{font-size:1.4rem;margin:0 0 .5rem}form{display:grid;gap:.5rem;margin-top:1rem}" +
  "label{font-weight:600}input{font:inherit;width:100%;padding:.6rem .7rem;border:1px solid #6e7781;border-radius:6px;background:#fff;color:inherit}" +
  "button{font:inherit;font-weight:600;padding:.6rem 1rem;border:0;border-radius:6px;background:#0b57d0;color:#fff;cursor:pointer}" +
  "input:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}.error{color:#a40e26;font-weight:600}";

export const GATE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Headers of every answer the gate gives itself: never stored by any cache, never indexed. */
export function gateHeaders(): Record<string, string> {
  return {
    "Cache-Control": "private, no-store",
    "X-Robots-Tag": "noindex",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
  };
}

/**
 * The lock page: a small form that works without JavaScript, posting the password and the path
 * to come back to. `returnTo` is the request's own path (with its query); `message` says why
 * the page is shown again (a wrong password, too many tries); `reportUrl` prefills the report
 * form its link opens.
 */
export function lockPage(
  status: number,
  returnTo: string,
  message?: string,
  extra: Record<string, string> = {},
  reportUrl?: string,
): ServeResult {
  const error = message ? `<p class="error" id="unlock-error" role="alert">${escapeHtml(message)}</p>` : "";
  const described = message ? ' aria-describedby="unlock-error"' : "";
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<meta name="robots" content="noindex"><title>Password required</title><style>${GATE_STYLE}</style></head><body><main>` +
    `<h1>Password required</h1><p>This site is protected. Enter its password to view it.</p>${error}` +
    `<form method="post" action="${UNLOCK_PATH}"><input type="hidden" name="path" value="${escapeHtml(safeReturnPath(returnTo))}">` +
    `<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required autofocus${described}>` +
    `<button type="submit">Unlock</button></form>${reportLinkHtml(reportUrl)}</main></body></html>`;
  const body = new TextEncoder().encode(html);
  return {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": String(body.byteLength),
      "Content-Security-Policy": GATE_POLICY,
      ...gateHeaders(),
      ...extra,
    },
    body,
  };
}

/**
 * Where the unlock form may send a visitor back to: a path on this host, never anywhere else,
 * whatever the form, `next` or Referer say. Anything that is not a plain path becomes "/".
 */
export function safeReturnPath(raw: string): string {
  if (
    !raw.startsWith("/") ||
    raw.startsWith("//") ||
    raw.includes("\\") ||
    [...raw].some((ch) => ch <= "\u001f" || ch === "\u007f")
  )
    return "/";
  const base = "http://drop.invalid";
  let u: URL;
  try {
    u = new URL(raw, base);
  } catch {
    return "/";
  }
  if (u.origin !== base || u.pathname.startsWith("/.well-known/dropsite/")) return "/";
  return u.pathname + u.search;
}

/** A page of its own for a refused unlock post (the form again, with why). */
function refused(status: number, returnTo: string, message: string, extra: Record<string, string> = {}): ServeResult {
  return lockPage(status, returnTo, message, extra);
}

function tooMany(err: ApiError, returnTo: string): ServeResult {
  return refused(429, returnTo, `Too many wrong passwords. ${err.hint ?? "Wait a minute and try again."}`, {
    "Retry-After": err.headers["Retry-After"] ?? "60",
  });
}

/** Whether an Origin header names another host than the one the form was posted to. */
export function crossOrigin(req: ServeRequest): boolean {
  const origin = req.headers.get("origin");
  if (!origin || origin === "null") return false;
  try {
    return new URL(origin).host.toLowerCase() !== (req.headers.get("host") ?? "").toLowerCase();
  } catch {
    return true;
  }
}

// POST /.well-known/dropsite/unlock on a drop host: the lock page's form.
export async function unlock(ctx: AppContext, m: Manifest, req: ServeRequest): Promise<ServeResult> {
  if (crossOrigin(req)) return refused(403, "/", "This form only works from the site's own page.");
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded")
    return refused(400, "/", "Send the password with the form on this page.");
  const raw = req.readBody ? await req.readBody(ACCESS_UNLOCK_BODY_BYTES) : new Uint8Array(0);
  if (raw === "too_large") return refused(413, "/", "The form sent more than this page accepts.");
  let form: URLSearchParams;
  try {
    form = new URLSearchParams(new TextDecoder("utf-8", { fatal: true }).decode(raw));
  } catch {
    return refused(400, "/", "The form could not be read.");
  }
  const returnTo = safeReturnPath(form.get("path") ?? "/");
  const password = form.get("password") ?? "";
  const subject = `${m.drop.id}:${clientAddress(req, ctx.env)}`;
  try {
    await checkLimit(ctx, "unlock", subject);
  } catch (err) {
    if (err instanceof ApiError && err.code === "rate_limited") return tooMany(err, returnTo);
    throw err;
  }
  const access = await findDropAccess(ctx.db, m.drop.id);
  if (!access || access.accessMode !== "password" || !access.accessPasswordHash) return seeOther(returnTo, {});
  // A password longer than any that can be set is wrong without hashing it.
  const right =
    passwordChars(password) <= ACCESS_PASSWORD_MAX_CHARS && (await verifyPassword(password, access.accessPasswordHash));
  if (!right) {
    try {
      await enforceLimit(ctx, "unlock", subject);
    } catch (err) {
      if (err instanceof ApiError && err.code === "rate_limited") return tooMany(err, returnTo);
      throw err;
    }
    return refused(401, returnTo, "Wrong password. Try again.");
  }
  return seeOther(returnTo, { "Set-Cookie": unlockCookieFor(ctx, access, req) });
}

/** The unlock cookie of `drop`, signed for the host the request came to (refused on every other host of the drop). */
export function unlockCookieFor(
  ctx: AppContext,
  drop: { id: string; accessPolicyVersion: number },
  req: Pick<ServeRequest, "headers">,
): string {
  return accessCookie(ctx.env, drop.id, drop.accessPolicyVersion, ctx.now(), canonicalHost(req.headers.get("host")));
}

export function seeOther(location: string, extra: Record<string, string>): ServeResult {
  return {
    status: 303,
    headers: { Location: location, "Content-Length": "0", ...gateHeaders(), ...extra },
    body: null,
  };
}

/**
 * An unlocked answer of a protected drop: for this browser only (private, no immutable), never
 * a CDN's to keep, never indexed.
 */
export function privateResult(r: ServeResult): ServeResult {
  const headers = { ...r.headers };
  delete headers["Vercel-CDN-Cache-Control"];
  delete headers["CDN-Cache-Control"];
  delete headers["Cache-Tag"];
  const cc = headers["Cache-Control"];
  if (cc !== undefined)
    headers["Cache-Control"] = cc.includes("no-store")
      ? "private, no-store"
      : `private, max-age=0, must-revalidate${cc.includes("no-transform") ? ", no-transform" : ""}`;
  headers["X-Robots-Tag"] = "noindex";
  return { ...r, headers };
}
