import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { zipSync, type Zippable } from "fflate";
import { ApiError } from "@/lib/errors";
import { openZip } from "@/lib/deploy/zip";

// A zip deploy frees each entry's bytes once they are stored (`source.release`): the inflated
// bytes and the ranges copied across a body's chunks go back at once, by detaching their
// ArrayBuffer, instead of piling up until V8's next full collection (issue 36 item 6). What
// must never be freed: a view of the archive's chunks (other entries read them still), or a
// slice of Node's shared Buffer pool (other Buffers live in it).

const MB = 1024 * 1024;
const tooLarge = (m: string) => new ApiError("payload_too_large", m);
const limits = {
  maxFiles: 1000,
  maxTotalBytes: 512 * MB,
  maxFileBytes: 64 * MB,
  tooManyFiles: () => new ApiError("file_cap_exceeded", "too many"),
  tooLarge,
  overRatio: tooLarge,
};

const text = (n: number, seed: number) => new TextEncoder().encode(`line ${seed} of some prose\n`.repeat(n / 20));

/** An archive cut into chunks of `size` bytes, as a body arrives (entries span chunks). */
function chunked(archive: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < archive.byteLength; i += size) out.push(archive.slice(i, i + size));
  return out;
}

const poolSize = Buffer.poolSize;
afterEach(() => {
  Buffer.poolSize = poolSize;
});

describe("zip entries release their bytes", () => {
  it.each([8 * 1024, 64 * 1024])(
    "inflated and copied entries are freed, views of the archive and the Buffer pool are not (Buffer.poolSize %i)",
    async (pool) => {
      Buffer.poolSize = pool;
      const big = text(100_000, 1);
      const tiny = text(120, 2);
      const binary = new Uint8Array(randomBytes(40_000));
      const small = new Uint8Array(randomBytes(300));
      const tree: Zippable = {
        "big.txt": [big, { level: 6 }],
        "tiny.txt": [tiny, { level: 6 }],
        "binary.bin": [binary, { level: 0 }],
        "small.bin": [small, { level: 0 }],
      };
      const archive = zipSync(tree);
      // 7,000-byte chunks: the 40 KB stored entry spans several (a copy), the 300-byte one most likely not.
      const chunks = chunked(archive, 7000);
      const pristine = chunks.map((c) => c.slice());
      const pooled = Buffer.from("a pooled neighbour");
      const files = openZip(chunks, limits);
      const want: Record<string, Uint8Array> = {
        "big.txt": big,
        "tiny.txt": tiny,
        "binary.bin": binary,
        "small.bin": small,
      };
      for (const f of files) {
        const bytes = await f.source!.read();
        expect(Buffer.from(bytes).equals(Buffer.from(want[f.path]!))).toBe(true);
        const viewOfArchive = chunks.some((c) => c.buffer === bytes.buffer);
        f.source!.release!(bytes);
        if (viewOfArchive) expect(bytes.byteLength).toBe(want[f.path]!.byteLength);
        else expect(bytes.byteLength).toBe(0);
      }
      // The inflated and the spanning stored entries were freed; the archive and the pool were not.
      const sizes = Object.fromEntries(files.map((f) => [f.path, f.source!.size]));
      expect(sizes).toEqual({
        "big.txt": big.byteLength,
        "tiny.txt": tiny.byteLength,
        "binary.bin": 40_000,
        "small.bin": 300,
      });
      chunks.forEach((c, i) => expect(Buffer.from(c).equals(Buffer.from(pristine[i]!))).toBe(true));
      expect(pooled.toString()).toBe("a pooled neighbour");
      // Every entry reads again from the untouched archive.
      for (const f of files) expect(Buffer.from(await f.source!.read()).equals(Buffer.from(want[f.path]!))).toBe(true);
    },
  );

  it("a release frees the bytes at once: reading 48 MB of entries holds about one group of them, not all", async () => {
    Buffer.poolSize = 64 * 1024;
    const tree: Zippable = {};
    for (let i = 0; i < 96; i++) tree[`p/${i}.txt`] = [text(512 * 1024, i), { level: 6 }];
    const files = openZip(chunked(zipSync(tree), 64 * 1024), limits);
    const gc = (globalThis as { gc?: (o: { type: "minor" | "major"; execution: "sync" }) => void }).gc!;
    // The tree's and the zipping's own garbage goes first: only the archive stays.
    gc({ type: "major", execution: "sync" });
    const before = process.memoryUsage().arrayBuffers;
    let peak = 0;
    // Groups of 8, held across two young collections as a deploy holds a group across its
    // database and storage calls: their Buffers are promoted, so only a full collection (or
    // the release) frees them.
    for (let g = 0; g < files.length; g += 8) {
      const group = files.slice(g, g + 8);
      const held = await Promise.all(group.map((f) => f.source!.read()));
      gc({ type: "minor", execution: "sync" });
      gc({ type: "minor", execution: "sync" });
      peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
      group.forEach((f, i) => f.source!.release!(held[i]!));
    }
    // One group is 4 MB. Without the release the promoted Buffers pile up (17.6 MB measured) until V8 collects in full.
    expect(peak).toBeLessThan(9 * MB);
  });

  it("a second release of the same bytes, or of bytes the zip did not give, changes nothing", async () => {
    const files = openZip(zipSync({ "a.txt": [text(50_000, 3), { level: 6 }] }), limits);
    const bytes = await files[0]!.source!.read();
    files[0]!.source!.release!(bytes);
    expect(() => files[0]!.source!.release!(bytes)).not.toThrow();
    const other = new Uint8Array(100_000).fill(7);
    files[0]!.source!.release!(other);
    expect(other.byteLength).toBe(100_000);
    expect(other[99_999]).toBe(7);
  });
});

describe("what a read of an entry allocates", () => {
  it("nothing for an entry stored as is within one chunk (a view); its size for one inflated, or copied across chunks", async () => {
    const binary = new Uint8Array(randomBytes(40_000));
    const small = new Uint8Array(randomBytes(300));
    const big = text(100_000, 4);
    const archive = zipSync({
      "small.bin": [small, { level: 0 }],
      "binary.bin": [binary, { level: 0 }],
      "big.txt": [big, { level: 6 }],
    });
    const allocates = (chunks: Uint8Array | Uint8Array[]) =>
      Object.fromEntries(openZip(chunks, limits).map((f) => [f.path, f.source!.allocates]));
    // One chunk: both stored entries are views of it.
    expect(allocates(archive)).toEqual({ "small.bin": 0, "binary.bin": 0, "big.txt": big.byteLength });
    // 7,000-byte chunks: the 40 KB stored entry spans several and is copied; the 300-byte one is
    // the archive's first entry, within its first chunk.
    expect(allocates(chunked(archive, 7000))).toEqual({
      "small.bin": 0,
      "binary.bin": binary.byteLength,
      "big.txt": big.byteLength,
    });
    // What a read returns agrees: a view shares the archive's memory, a copy does not.
    const [first, second] = openZip(chunked(archive, 7000), limits);
    const view = await first!.source!.read();
    const copy = await second!.source!.read();
    expect(view.byteLength).toBe(300);
    expect(view.buffer.byteLength).toBe(7000);
    expect(copy.buffer.byteLength).toBe(binary.byteLength);
  });
});
