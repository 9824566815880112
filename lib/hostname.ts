import { isIP } from "node:net";
import { domainToASCII } from "node:url";

// Hostnames of custom domains, as pure functions: the one normal form (lowercase, no trailing
// dot, internationalised names as punycode) every comparison uses, and the refusal list of
// POST /domains. lib/serve/host.ts reads the same rules to tell a possible custom domain from
// a host that can only be the app's.

/** A hostname has at most this many characters (RFC 1035, without the trailing dot). */
export const HOSTNAME_MAX_CHARS = 253;
/** A label has at most this many characters (RFC 1035). */
export const LABEL_MAX_CHARS = 63;

/**
 * Hosts under these suffixes are the hosting platform's own addresses of the app (Vercel's
 * deployment URLs, which its cron jobs call): they stay the app's and cannot be claimed.
 */
const PLATFORM_SUFFIXES = ["vercel.app"];

const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

export type HostnameCheck = { ok: true; hostname: string } | { ok: false; reason: string };

function under(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/** "example.com:3000" → "example.com"; "[::1]:3000" → "[::1]". */
export function withoutPort(host: string): string {
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    return end < 0 ? host : host.slice(0, end + 1);
  }
  return host.replace(/:\d*$/, "");
}

/**
 * The normal form of a name that could be a custom domain, or why it cannot be one: refuses
 * ports, wildcards, IP literals, single labels, localhost, the platform's own suffixes, names
 * over 253 characters and labels over 63. Says nothing about this service's own hosts.
 */
export function normalizeHostname(input: string): HostnameCheck {
  let name = input.trim().toLowerCase();
  if (name === "") return { ok: false, reason: "it is empty" };
  if (name.includes("*")) return { ok: false, reason: "wildcards are not supported; add each name" };
  if (name.startsWith("[") || isIP(name) !== 0) return { ok: false, reason: "it is an IP address, not a name" };
  if (name.includes(":")) return { ok: false, reason: "a hostname has no port" };
  if (/[/?#@\\\s]/.test(name)) return { ok: false, reason: "send the hostname alone, without a scheme or a path" };
  if (name.endsWith(".")) name = name.slice(0, -1);
  if (name.endsWith(".")) return { ok: false, reason: "it has an empty label" };
  // WHATWG host parsing: IDN to punycode (UTS #46), and "" for a name it refuses.
  const ascii = domainToASCII(name);
  if (ascii === "") return { ok: false, reason: "it is not a valid hostname" };
  if (isIP(ascii) !== 0) return { ok: false, reason: "it is an IP address, not a name" };
  if (ascii.length > HOSTNAME_MAX_CHARS)
    return { ok: false, reason: `it is longer than ${HOSTNAME_MAX_CHARS} characters` };
  const labels = ascii.split(".");
  for (const label of labels) {
    if (label.length > LABEL_MAX_CHARS)
      return { ok: false, reason: `a label is longer than ${LABEL_MAX_CHARS} characters` };
    if (!LABEL.test(label)) return { ok: false, reason: "a label may hold only letters, digits and inner hyphens" };
  }
  if (labels.length < 2) return { ok: false, reason: "a single label is not a public hostname" };
  if (/^\d+$/.test(labels[labels.length - 1]!)) return { ok: false, reason: "it is an IP address, not a name" };
  if (under(ascii, "localhost")) return { ok: false, reason: "localhost is not a public hostname" };
  if (PLATFORM_SUFFIXES.some((s) => under(ascii, s)))
    return { ok: false, reason: "it is the hosting platform's own address" };
  return { ok: true, hostname: ascii };
}

/**
 * Whether a host as a parsed URL gives it (lower case, punycode, no port) names a host: an IP
 * literal, or at most 253 characters of labels of letters, digits and inner hyphens, each at
 * most 63 characters. WHATWG URL parsing also takes `exa!mple.com`, `a{b}` and `a..b`.
 */
export function isHostname(host: string): boolean {
  if (host.startsWith("[") ? isIP(host.slice(1, -1)) === 6 && host.endsWith("]") : isIP(host) !== 0) return true;
  if (host.length === 0 || host.length > HOSTNAME_MAX_CHARS) return false;
  return host
    .replace(/\.$/, "")
    .split(".")
    .every((label) => label.length <= LABEL_MAX_CHARS && LABEL.test(label));
}

/** This service's own hosts (with or without ports): the app's and the serve domain. */
export interface OwnHosts {
  appHost: string;
  serveDomain: string;
}

/**
 * POST /domains's check: the normal form, or why the name is refused (the refusals of
 * normalizeHostname, plus the app's host, the serve domain and every name under it).
 */
export function checkCustomHostname(input: string, own: OwnHosts): HostnameCheck {
  const r = normalizeHostname(input);
  if (!r.ok) return r;
  const app = withoutPort(own.appHost.toLowerCase()).replace(/\.$/, "");
  const serve = withoutPort(own.serveDomain.toLowerCase()).replace(/\.$/, "");
  if (r.hostname === app) return { ok: false, reason: "it is this service's own host" };
  if (under(r.hostname, serve)) return { ok: false, reason: `names under ${serve} are this service's drop hosts` };
  return r;
}
