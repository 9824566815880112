import { createHmac, timingSafeEqual } from "node:crypto";
import { publicScheme, type Env } from "../env";
import { ACCESS_UNLOCK_SECONDS } from "../plans";
import { derivedKey } from "../secret";

// The viewer cookie of an emails-only drop and of a share link (DESIGN "Sharing by identity"):
// "<policy version>.<expiry>.<who>.<signature>", where <who> names the viewer ("e:" and an
// address, or "s:" and a share link's id, base64url) and the signature is an HMAC-SHA256 (key
// derived from the server secret) over the drop's id, the host it was issued on, the policy
// version, the expiry and <who>. Like the unlock cookie (cookie.ts) it is good for one drop on
// one of its hosts, until its expiry, at its policy version; the serve path then checks that
// <who> still may see the drop (the address on the list as it is now, the share link not
// revoked), so taking an address off the list or revoking a link ends its cookies at once.
// Host-only, Path=/, HttpOnly, SameSite=Lax, Secure over https (with the __Host- prefix).

const PURPOSE = "drop-viewer-cookie";
const TOKEN_PURPOSE = "drop-sharing-token";

export type Viewer = { email: string } | { shareLink: string };

export function viewerCookieName(e: Env): string {
  return publicScheme(e) === "https" ? "__Host-dropsite-viewer" : "dropsite-viewer";
}

function whoOf(v: Viewer): string {
  return Buffer.from("email" in v ? `e:${v.email}` : `s:${v.shareLink}`).toString("base64url");
}

function sign(e: Env, dropId: string, host: string, policy: number, expires: number, who: string): string {
  return createHmac("sha256", derivedKey(PURPOSE, e))
    .update(`${dropId}.${host}.${policy}.${expires}.${who}`)
    .digest("base64url");
}

/** The Set-Cookie value naming `viewer` on this drop, on `host` (lower case, no default port), at `policy`. */
export function viewerCookie(
  e: Env,
  dropId: string,
  policy: number,
  nowMs: number,
  host: string,
  viewer: Viewer,
): string {
  const expires = Math.floor(nowMs / 1000) + ACCESS_UNLOCK_SECONDS;
  const who = whoOf(viewer);
  const value = `${policy}.${expires}.${who}.${sign(e, dropId, host, policy, expires, who)}`;
  const secure = publicScheme(e) === "https" ? "; Secure" : "";
  return `${viewerCookieName(e)}=${value}; Path=/; Max-Age=${ACCESS_UNLOCK_SECONDS}; HttpOnly; SameSite=Lax${secure}`;
}

/** Every viewer the request's cookies name validly for this drop, host and policy version now (a page may set look-alikes). */
export function viewersOf(
  e: Env,
  cookieHeader: string | null,
  dropId: string,
  policy: number,
  nowMs: number,
  host: string,
): Viewer[] {
  if (!cookieHeader) return [];
  const name = viewerCookieName(e);
  const out: Viewer[] = [];
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0 || part.slice(0, eq).trim() !== name) continue;
    const m = /^(\d{1,10})\.(\d{1,12})\.([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/.exec(part.slice(eq + 1).trim());
    if (!m) continue;
    const [, p = "", x = "", who = "", sig = ""] = m;
    const expires = Number(x);
    if (Number(p) !== policy || expires * 1000 <= nowMs) continue;
    const expected = Buffer.from(sign(e, dropId, host, policy, expires, who));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) continue;
    const decoded = Buffer.from(who, "base64url").toString("utf8");
    if (decoded.startsWith("e:")) out.push({ email: decoded.slice(2) });
    else if (decoded.startsWith("s:")) out.push({ shareLink: decoded.slice(2) });
  }
  return out;
}

/** The stored form of a sign-in or share token: its keyed hash (the token itself is never stored or logged). */
export function sharingTokenHash(e: Env, token: string): string {
  return createHmac("sha256", derivedKey(TOKEN_PURPOSE, e)).update(token).digest("hex");
}
