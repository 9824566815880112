import { zipSync, type Zippable } from "fflate";

// Builders of the hostile (and friendly) zip corpus used by the tests.

const enc = new TextEncoder();
export const text = (s: string) => enc.encode(s);

export function zip(files: Record<string, Uint8Array | string>): Uint8Array {
  const z: Zippable = {};
  for (const [k, v] of Object.entries(files)) z[k] = typeof v === "string" ? text(v) : v;
  return zipSync(z);
}

/** An archive holding a Unix symbolic link entry named `name` pointing at `target`. */
export function zipWithSymlink(name: string, target: string): Uint8Array {
  return zipSync({
    "index.html": text("<h1>ok</h1>"),
    [name]: [text(target), { os: 3, attrs: (0o120777 << 16) >>> 0 }],
  });
}

/** Highly compressible content: `size` bytes of zeros deflate to almost nothing. */
export function bomb(size: number): Uint8Array {
  return zipSync({ "index.html": text("<h1>bomb</h1>"), "zeros.bin": [new Uint8Array(size), { level: 9 }] });
}

export function manyFiles(n: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) out[`f${i}.txt`] = `file ${i}`;
  return out;
}
