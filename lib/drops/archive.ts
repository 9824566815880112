import { Zip, ZipDeflate, ZipPassThrough } from "fflate";
import { DEPLOY_ZIP_RATIO } from "../files/pack";

// A version as a zip, written as it is read: one stored file at a time is streamed from the byte
// store through fflate's streaming Zip, and the next chunk is read only when the reader of the
// archive asks for more (a slow download holds one chunk, never the archive). The archive must
// deploy again: every deploy refuses a zip that unpacks to more than DEPLOY_ZIP_RATIO times its
// size, so an entry is deflated only while the archive so far, with that entry deflated as far
// as deflate can go, stays within the ratio; other entries (and already compressed types) are
// stored as they are.

export interface ArchiveEntry {
  path: string;
  size: number;
  /** Text-like content, worth deflating. */
  compressible: boolean;
  /** The stored bytes; null when the store no longer has them. */
  open(): Promise<ReadableStream<Uint8Array> | null>;
}

/** Deflate's best case: a run of one byte shrinks about this much (RFC 1951's 258-byte matches). */
const DEFLATE_MAX_RATIO = 1032;

/**
 * The zip of `entries` as a stream. A stored object that is missing, or not the size its row
 * says, errors the stream (the listener then ends the connection: the archive is cut short,
 * never silently wrong).
 */
export function zipStream(
  entries: readonly ArchiveEntry[],
  mtime: Date,
  ratio = DEPLOY_ZIP_RATIO,
): ReadableStream<Uint8Array> {
  let out: Uint8Array[] = [];
  let written = 0;
  let unpacked = 0;
  let finished = false;
  let failure: Error | null = null;
  const zip = new Zip((err, chunk, final) => {
    if (err) failure = err;
    else {
      out.push(chunk);
      written += chunk.byteLength;
      if (final) finished = true;
    }
  });
  let next = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  let file: ZipDeflate | ZipPassThrough | null = null;
  let current: ArchiveEntry | null = null;
  let seen = 0;

  async function open(e: ArchiveEntry): Promise<void> {
    const deflate = e.compressible && e.size > 0 && unpacked + e.size <= ratio * (written + e.size / DEFLATE_MAX_RATIO);
    const f = deflate ? new ZipDeflate(e.path, { level: 6 }) : new ZipPassThrough(e.path);
    f.mtime = mtime;
    const stream = await e.open();
    if (!stream) throw new Error(`the stored bytes of ${e.path} are missing`);
    zip.add(f);
    unpacked += e.size;
    file = f;
    current = e;
    seen = 0;
    reader = stream.getReader();
  }

  /** Moves the archive on by one chunk read (or one entry opened, or the end written). */
  async function step(): Promise<void> {
    if (!reader || !file || !current) {
      const e = entries[next++];
      if (e) await open(e);
      else zip.end();
      return;
    }
    const r = await reader.read();
    if (r.done) {
      if (seen !== current.size)
        throw new Error(`the stored bytes of ${current.path} are ${seen}, not ${current.size}`);
      file.push(new Uint8Array(0), true);
      reader = null;
      return;
    }
    seen += r.value.byteLength;
    if (seen > current.size) throw new Error(`the stored bytes of ${current.path} are over ${current.size}`);
    file.push(r.value, false);
  }

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (out.length === 0 && !finished) {
          await step();
          if (failure) throw failure;
        }
        const chunks = out;
        out = [];
        for (const c of chunks) controller.enqueue(c);
        if (finished && out.length === 0) controller.close();
      },
      async cancel(reason) {
        await reader?.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
