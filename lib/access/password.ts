import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

// Drop passwords: a slow, salted scrypt hash (node:crypto), stored self-describing
// ("scrypt$N$r$p$salt$hash", base64url) so its cost can rise later without breaking old hashes.
// The password itself is never stored, returned or logged.

const COST = { N: 1 << 15, r: 8, p: 1 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;

function derive(password: string, salt: Buffer, o: { N: number; r: number; p: number }): Promise<Buffer> {
  const opts: ScryptOptions = { N: o.N, r: o.r, p: o.p, maxmem: 256 * o.N * o.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, KEY_BYTES, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, COST);
  return ["scrypt", COST.N, COST.r, COST.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** Whether a password matches a stored hash (constant time in the comparison); false for any malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split("$");
  if (kind !== "scrypt" || !n || !r || !p || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, "base64url");
  const o = { N: Number(n), r: Number(r), p: Number(p) };
  if (!Number.isInteger(o.N) || !Number.isInteger(o.r) || !Number.isInteger(o.p) || expected.length !== KEY_BYTES)
    return false;
  const key = await derive(password, Buffer.from(salt, "base64url"), o);
  return timingSafeEqual(key, expected);
}
