import { createHash, randomBytes, randomUUID } from "node:crypto";

// Identifiers and secrets. Slugs are DNS labels of 20 base32 characters (100 random bits),
// lowercase, with no hyphen at all, so never "--" (which marks vanity hosts).

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

export function newSlug(): string {
  const bytes = randomBytes(20);
  let out = "";
  for (const b of bytes) out += BASE32[b & 31];
  return out;
}

export function newId(): string {
  return randomUUID();
}

export function newClaimToken(): string {
  return `ct_${randomBytes(32).toString("base64url")}`;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** An id of 24 base32 characters (120 random bits) after a prefix: msg_…, wh_…, att_…. */
export function prefixedId(prefix: string): string {
  let out = `${prefix}_`;
  for (const b of randomBytes(24)) out += BASE32[b & 31];
  return out;
}
