import { createHash } from "node:crypto";
import { collectYoungGarbage } from "./garbage";

/** Young garbage is collected every this many bytes copied (the chunks copied die at once). */
const COLLECT_EVERY = 4 * 1024 * 1024;

/**
 * Reads a stored object's stream, of exactly `size` bytes, hashing it: its SHA-256 (hex), or
 * null as soon as it runs past `size` or when it ends short. With `copy`, the bytes are also
 * copied into one buffer of `size` (the stored object's size, already checked) as they stream:
 * a network stream's chunks each hold a socket read buffer larger than themselves, and a zip
 * archive kept as them would span them entry by entry; the chunks copied are collected as they
 * pile up, not at V8's leisure.
 */
export async function readWhole(
  body: ReadableStream<Uint8Array>,
  size: number,
  copy: boolean,
): Promise<{ sha256: string; bytes?: Uint8Array } | null> {
  const hash = createHash("sha256");
  const whole = copy ? new Uint8Array(size) : undefined;
  let seen = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (seen + value.byteLength > size) {
      void reader.cancel().catch(() => undefined); // not awaited: see readUpTo in report.ts
      return null;
    }
    hash.update(value);
    whole?.set(value, seen);
    seen += value.byteLength;
    if (whole && seen % COLLECT_EVERY < value.byteLength) collectYoungGarbage();
  }
  return seen === size ? { sha256: hash.digest("hex"), bytes: whole } : null;
}
