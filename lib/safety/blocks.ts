import ipaddr from "ipaddr.js";
import type { AppContext } from "../context";
import { listBlocks } from "../db/safety";
import { withDb } from "../db/errors";
import { ApiError } from "../errors";
import { env } from "../env";

// Address blocks by CIDR range (IPv4 and IPv6, parsed by ipaddr.js): anonymous deploys,
// preflights and reports from a blocked range are refused (403 forbidden). An account's
// requests from the range go through: a block is for callers nobody vouches for.

/** A range in normal form ("10.1.0.0/16", "2001:db8::/32"), or null when it is not one. */
export function normalizeCidr(input: string): string | null {
  try {
    const [addr, bits] = ipaddr.parseCIDR(input.trim());
    const network =
      addr.kind() === "ipv4"
        ? ipaddr.IPv4.networkAddressFromCIDR(`${addr.toString()}/${bits}`)
        : ipaddr.IPv6.networkAddressFromCIDR(`${addr.toString()}/${bits}`);
    return `${network.toString()}/${bits}`;
  } catch {
    return null;
  }
}

/**
 * Whether an address lies in a range (an IPv4-mapped IPv6 address counts as its IPv4 one). A
 * client counted by its range (IPv6 by its /64, lib/ratelimit/address.ts) is in a block when the
 * two ranges overlap: a block of one address of the /64 blocks the client that holds it.
 */
export function inRange(address: string, cidr: string): boolean {
  try {
    const range = ipaddr.parseCIDR(cidr);
    if (address.includes("/")) {
      const own = ipaddr.parseCIDR(address);
      return own[0].kind() === range[0].kind() && (own[0].match(range) || range[0].match(own));
    }
    if (!ipaddr.isValid(address)) return false;
    const addr = ipaddr.process(address);
    return addr.kind() === range[0].kind() && addr.match(range);
  } catch {
    return false;
  }
}

/** Throws 403 forbidden when the address is in a block in force. */
export async function refuseBlocked(ctx: AppContext, address: string): Promise<void> {
  const blocks = await withDb(() => listBlocks(ctx.db, new Date(ctx.now())));
  if (!blocks.some((b) => inRange(address, b.cidr))) return;
  throw new ApiError("forbidden", "Requests without an account are not accepted from this network.", {
    hint: `Log in and use an API key, or ask for a review with the report form at ${env().BASE_URL}/report.`,
  });
}
