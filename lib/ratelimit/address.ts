import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
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
//
// Whichever it is, the answer is the address's key (addressKey): one address however it is
// written, and an IPv6 client by its /64, which one subscriber usually holds whole.

export type AddressEnv = Pick<Env, "TRUST_PROXY" | "TRUST_PROXY_HOPS" | "VERCEL">;

const SOCKET_HEADER = "x-dropsite-socket-ip";

function valid(v: string | null | undefined): string | null {
  const s = v?.trim();
  if (!s) return null;
  return isIP(s) ? s : null;
}

/** The prefix an IPv6 client is counted by. */
const IPV6_CLIENT_BITS = 64;

/**
 * The key of an address for every per-address limit and cap (DESIGN "Hardening decisions
 * (round 5)", Addresses): an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is the IPv4 address;
 * IPv6 is its /64, written canonically (RFC 5952: `2001:db8:0:1::/64`); anything that is no
 * address is kept as it is.
 */
export function addressKey(address: string): string {
  const trimmed = address.trim();
  // Node's rule of what an address is (ipaddr.js would also read "1" or "0x7f.1" as IPv4).
  if (isIP(trimmed) === 0) return address;
  const parsed = ipaddr.process(trimmed);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toNormalizedString()}/${IPV6_CLIENT_BITS}`);
  return `${network.toString()}/${IPV6_CLIENT_BITS}`;
}

/** What clientAddress reads of a request: its headers (a web Request, or the serve path's request). */
export interface WithHeaders {
  headers: { get(name: string): string | null };
}

/** The client's address as the key of per-address limits (addressKey). */
export function clientAddress(req: WithHeaders, e: AddressEnv): string {
  return addressKey(rawClientAddress(req, e));
}

function rawClientAddress(req: WithHeaders, e: AddressEnv): string {
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
