import { createHmac, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env, isLocalDeployment, type Env } from "./env";

/**
 * The server's own secret: NEXTAUTH_SECRET, or on a developer's machine one generated once per
 * data dir. Browser sessions sign with it, and keys for other purposes are derived from it
 * (lib/access/cookie.ts), so no purpose needs a variable of its own.
 */
export function serverSecret(e: Env = env()): string {
  if (e.NEXTAUTH_SECRET) return e.NEXTAUTH_SECRET;
  if (!isLocalDeployment(e)) throw new Error("NEXTAUTH_SECRET is required when BASE_URL is not a localhost URL");
  const file = path.resolve(e.DATA_DIR, "nextauth-secret");
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    mkdirSync(path.dirname(file), { recursive: true });
    const secret = randomBytes(32).toString("base64url");
    try {
      writeFileSync(file, secret, { mode: 0o600, flag: "wx" });
    } catch {
      // Another process wrote it first: its secret is the one.
    }
    return readFileSync(file, "utf8").trim();
  }
}

/** A key for one purpose, derived from the server secret (HMAC-SHA256 of the purpose's name). */
export function derivedKey(purpose: string, e: Env = env()): Buffer {
  return createHmac("sha256", serverSecret(e)).update(`dropsite:${purpose}`).digest();
}

/**
 * A client address as the service keeps it (a report's reporter, an audit entry's refused
 * caller): HMAC-SHA256 under a key derived from the server secret, never the address itself.
 */
export function addressHash(address: string, e: Env = env()): string {
  return createHmac("sha256", derivedKey("address", e)).update(address).digest("hex");
}
