import { createHmac, timingSafeEqual } from "node:crypto";
import { publicScheme, type Env } from "../env";
import { ACCESS_UNLOCK_SECONDS } from "../plans";
import { derivedKey } from "../secret";

// The unlock cookie of a protected drop: "<policy version>.<expiry>.<signature>", where the
// signature is an HMAC-SHA256 (key derived from the server secret) over the drop's id, the host
// it was issued on, the policy version and the expiry. So it is good for one drop on one of its
// hosts only (a preview host's cookie opens neither the live host nor another preview), until
// its expiry, and only while the drop's policy version is the one it names: any change of mode
// or password revokes every cookie at once. Host-only (no Domain), Path=/, HttpOnly, SameSite=Lax, Secure over
// https (and then named with the __Host- prefix, which browsers hold to those rules).

const UNLOCK_SECONDS = ACCESS_UNLOCK_SECONDS;

const PURPOSE = "drop-access-cookie";

export function accessCookieName(e: Env): string {
  return publicScheme(e) === "https" ? "__Host-dropsite-access" : "dropsite-access";
}

function sign(e: Env, dropId: string, host: string, policy: number, expires: number): string {
  return createHmac("sha256", derivedKey(PURPOSE, e))
    .update(`${dropId}.${host}.${policy}.${expires}`)
    .digest("base64url");
}

/** The Set-Cookie value that unlocks a drop at its policy version on `host` (lower case, no default port). */
export function accessCookie(e: Env, dropId: string, policy: number, nowMs: number, host: string): string {
  const expires = Math.floor(nowMs / 1000) + UNLOCK_SECONDS;
  const value = `${policy}.${expires}.${sign(e, dropId, host, policy, expires)}`;
  const secure = publicScheme(e) === "https" ? "; Secure" : "";
  return `${accessCookieName(e)}=${value}; Path=/; Max-Age=${UNLOCK_SECONDS}; HttpOnly; SameSite=Lax${secure}`;
}

/** The values of every cookie of that name in a Cookie header (a drop's page may set look-alikes). */
function cookieValues(header: string | null, name: string): string[] {
  if (!header) return [];
  const out: string[] = [];
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) out.push(part.slice(eq + 1).trim());
  }
  return out;
}

/** Whether the request's cookies unlock this drop, on this host, at its current policy version. */
export function hasAccess(
  e: Env,
  cookieHeader: string | null,
  dropId: string,
  policy: number,
  nowMs: number,
  host: string,
): boolean {
  return cookieValues(cookieHeader, accessCookieName(e)).some((v) => validValue(e, v, dropId, host, policy, nowMs));
}

function validValue(e: Env, value: string, dropId: string, host: string, policy: number, nowMs: number): boolean {
  const m = /^(\d{1,10})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!m) return false;
  const [, p = "", x = "", sig = ""] = m;
  if (Number(p) !== policy) return false;
  const expires = Number(x);
  if (expires * 1000 <= nowMs) return false;
  const expected = Buffer.from(sign(e, dropId, host, policy, expires));
  const given = Buffer.from(sig);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
