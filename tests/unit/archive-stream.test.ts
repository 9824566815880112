import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { unzipSync } from "fflate";
import { zipStream, type ArchiveEntry } from "@/lib/drops/archive";
import { DEPLOY_ZIP_RATIO } from "@/lib/files/pack";

// The archive of a version is written as it is read: a reader that takes one chunk has made the
// store open one file, not all; a missing or wrongly sized object errors the stream; and text is
// deflated only while the archive stays within the deploy's decompression ratio.

const streamOf = (bytes: Uint8Array, chunk = 16 * 1024) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.byteLength; i += chunk) c.enqueue(bytes.subarray(i, i + chunk));
      c.close();
    },
  });

function entries(files: Record<string, Uint8Array>, compressible: boolean, opened: string[] = []): ArchiveEntry[] {
  return Object.entries(files).map(([path, bytes]) => ({
    path,
    size: bytes.byteLength,
    compressible,
    open: () => {
      opened.push(path);
      return Promise.resolve(streamOf(bytes));
    },
  }));
}

const whole = async (s: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(s).arrayBuffer());

describe("zipStream", () => {
  it("opens the next stored file only when the reader asks for more", async () => {
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 40; i++) files[`f${String(i).padStart(2, "0")}.bin`] = new Uint8Array(randomBytes(64 * 1024));
    const opened: string[] = [];
    const reader = zipStream(entries(files, false, opened), new Date("2026-01-01T00:00:00Z")).getReader();
    await reader.read();
    expect(opened.length).toBeLessThanOrEqual(1);
    await reader.cancel();

    const all = await whole(zipStream(entries(files, false), new Date("2026-01-01T00:00:00Z")));
    const back = unzipSync(all);
    for (const [p, b] of Object.entries(files)) expect(Buffer.from(back[p]!).equals(Buffer.from(b)), p).toBe(true);
  });

  it("errors on a missing object or one whose size is not its row's", async () => {
    const missing: ArchiveEntry = { path: "gone.txt", size: 3, compressible: true, open: () => Promise.resolve(null) };
    await expect(whole(zipStream([missing], new Date()))).rejects.toThrow(/missing/);
    const short: ArchiveEntry = { ...missing, size: 10, open: () => Promise.resolve(streamOf(new Uint8Array(3))) };
    await expect(whole(zipStream([short], new Date()))).rejects.toThrow(/not 10/);
    const long: ArchiveEntry = { ...missing, size: 2, open: () => Promise.resolve(streamOf(new Uint8Array(3))) };
    await expect(whole(zipStream([long], new Date()))).rejects.toThrow(/over 2/);
  });

  it("keeps the archive within the deploy's decompression ratio however well the text deflates", async () => {
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i < 30; i++) files[`page${i}.html`] = new TextEncoder().encode("<p>same</p>".repeat(20_000));
    const unpacked = Object.values(files).reduce((n, b) => n + b.byteLength, 0);
    const archived = await whole(zipStream(entries(files, true), new Date()));
    expect(unpacked).toBeLessThanOrEqual(DEPLOY_ZIP_RATIO * archived.byteLength);
    // Deflated where it could be: well under the files' own size.
    expect(archived.byteLength).toBeLessThan(unpacked / 2);
    expect(Object.keys(unzipSync(archived))).toHaveLength(30);
  });
});
