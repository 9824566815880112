import { isIP } from "node:net";
import type { Env } from "../env";

// The one function for a request's client address (the subject of per-address limits).
//
// - Without TRUST_PROXY: the socket address, which our server (server.mjs) writes into
//   x-dropsite-socket-ip, overwriting anything a client sent.
// - On Vercel (VERCEL set) with TRUST_PROXY: the platform's x-real-ip, which Vercel sets itself.
// - Otherwise with TRUST_PROXY: each of the TRUST_PROXY_HOPS proxies in front of the app appends
//   the address it received the request from to X-Forwarded-For, so the client is the entry
//   TRUST_PROXY_HOPS places from the right. Everything left of it was written by the client and
//   is ignored. With fewer entries than hops, the request did not come through the proxies:
//   the socket address is used.

export type AddressEnv = Pick<Env, "TRUST_PROXY" | "TRUST_PROXY_HOPS" | "VERCEL">;

const SOCKET_HEADER = "x-dropsite-socket-ip";

function valid(v: string | null | undefined): string | null {
  const s = v?.trim();
  if (!s) return null;
  return isIP(s) ? s : null;
}

/** What clientAddress reads of a request: its headers (a web Request, or the serve path's request). */
export interface WithHeaders {
  headers: { get(name: string): string | null };
}

export function clientAddress(req: WithHeaders, e: AddressEnv): string {
  const socket = req.headers.get(SOCKET_HEADER)?.trim() || "unknown";
  if (!e.TRUST_PROXY) return socket;
  if (e.VERCEL) return valid(req.headers.get("x-real-ip")) ?? socket;
  const entries = (req.headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length < e.TRUST_PROXY_HOPS) return socket;
  return valid(entries[entries.length - e.TRUST_PROXY_HOPS]) ?? socket;
}
