import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

// Where a webhook may point (SSRF). Unless WEBHOOKS_ALLOW_PRIVATE=1, a URL must be https and its
// host must resolve only to public unicast addresses: no loopback, private, shared (CGNAT),
// link-local (cloud metadata at 169.254.169.254 included), multicast, reserved or unspecified
// address, in any spelling (the URL parser reads 2130706433 and 0x7f.1 as 127.0.0.1; IPv4
// embedded in IPv6 is checked as the IPv4 address). Checked at creation and again before every
// delivery, which connects to the address checked (lib/webhooks/deliver.ts), so a DNS answer
// that changes after creation is caught.

const refused = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8], // "this network", 0.0.0.0
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // shared address space (CGNAT; Alibaba's metadata at 100.100.100.200)
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  refused.addSubnet(net, bits, "ipv4");
}
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["fc00::", 7], // unique local (fd00:ec2::254, AWS's metadata over IPv6, is in it)
  ["fe80::", 10], // link-local
  ["fec0::", 10],
  ["ff00::", 8], // multicast
] as const) {
  refused.addSubnet(net, bits, "ipv6");
}

/** The IPv4 address an IPv6 address carries (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96), if any. */
function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (!groups) return undefined;
  const zeros = (n: number) => groups.slice(0, n).every((g) => g === 0);
  const mapped = zeros(5) && groups[5] === 0xffff;
  const compatible = zeros(6) && (groups[6] !== 0 || (groups[7] ?? 0) > 1);
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0);
  if (!mapped && !compatible && !nat64) return undefined;
  const hi = groups[6] ?? 0;
  const lo = groups[7] ?? 0;
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included), or undefined. */
function expandIpv6(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, "");
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const p = dotted[1].split(".").map(Number);
    text =
      text.slice(0, -dotted[1].length) +
      `${(((p[0] ?? 0) << 8) | (p[1] ?? 0)).toString(16)}:${(((p[2] ?? 0) << 8) | (p[3] ?? 0)).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const fill = tail === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<string>(Math.max(fill, 0)).fill("0"), ...right].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/** Whether an IP address (v4 or v6, no brackets) is one a webhook may not reach. */
export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return refused.check(address, "ipv4");
  if (family !== 6) return true;
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined) return refused.check(v4, "ipv4");
  return refused.check(address.replace(/%.*$/, ""), "ipv6");
}

/** Why a webhook URL is refused before resolution (scheme, form), or null. */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return "url must be an absolute http(s) URL";
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return "url must be an http(s) URL";
  if (!allowPrivate && u.protocol !== "https:") return "url must use https";
  if (u.username !== "" || u.password !== "") return "url must not carry credentials";
  if (u.hostname === "") return "url must name a host";
  return null;
}

/** A host resolved and checked: the address to connect to. */
export interface Resolved {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a URL's host and checks every address it has; throws an Error saying why when one
 * is refused (all are checked, so a host cannot hide a private address behind a public one).
 * With allowPrivate only resolves.
 */
export async function resolveTarget(url: URL, allowPrivate: boolean): Promise<Resolved> {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  const literal = isIP(host);
  const answers = literal
    ? [{ address: host, family: literal }]
    : await lookup(host, { all: true, verbatim: true }).catch(() => {
        throw new Error(`the host ${host} does not resolve`);
      });
  const first = answers[0];
  if (!first) throw new Error(`the host ${host} does not resolve`);
  if (!allowPrivate) {
    const bad = answers.find((a) => isRefusedAddress(a.address));
    if (bad)
      throw new Error(
        `the host ${host} resolves to ${bad.address}, a loopback, private, link-local, multicast or reserved address`,
      );
  }
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}
