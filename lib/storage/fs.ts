import fs, { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import { randomBytes } from "node:crypto";
import { assertScopedPrefix, type ByteRange, type Storage } from "./types";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";

// The embedded default: files under DATA_DIR/blobs. Writes go to a temp name and are renamed
// into place, so a reader never sees half a file.

/** Temp names: a random tag drawn once per process, and a count of its writes. */
const PROCESS_TAG = randomBytes(6).toString("hex");
let writes = 0;
const tempName = (full: string) => `${full}.${PROCESS_TAG}-${++writes}.tmp`;

// The callback forms: a write of many small files (a zip deploy's) costs the event loop a third
// less than through fs/promises, whose FileHandle each open makes and closes.
const writeFileCb = promisify(fs.writeFile);
const renameCb = promisify(fs.rename);

export class FsStorage implements Storage {
  readonly kind = "fs";
  constructor(private readonly root: string) {}

  private resolve(key: string): string {
    const full = path.resolve(this.root, key);
    if (!full.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`storage key escapes root: ${key}`);
    return full;
  }

  async put(key: string, bytes: Uint8Array): Promise<string> {
    const full = this.resolve(key);
    const tmp = tempName(full);
    // The folder is made only when the write finds it missing: most puts land in a folder that
    // exists (one per content scope), and a mkdir per put costs a deploy of many files dearly.
    try {
      await writeFileCb(tmp, bytes);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      await mkdir(path.dirname(full), { recursive: true });
      await writeFileCb(tmp, bytes);
    }
    await renameCb(tmp, full);
    return key;
  }

  async putStream(key: string, body: ReadableStream<Uint8Array>): Promise<string> {
    const full = this.resolve(key);
    await mkdir(path.dirname(full), { recursive: true });
    const tmp = tempName(full);
    try {
      await pipeline(Readable.fromWeb(body as NodeReadableStream<Uint8Array>), createWriteStream(tmp));
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    await rename(tmp, full);
    return key;
  }

  async delete(ref: string): Promise<void> {
    await rm(this.resolve(ref), { force: true });
  }

  async size(ref: string): Promise<number | null> {
    try {
      const s = await stat(this.resolve(ref));
      return s.isFile() ? s.size : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
  }

  async get(ref: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | null> {
    const full = this.resolve(ref);
    try {
      const s = await stat(full);
      if (!s.isFile()) return null;
    } catch {
      return null;
    }
    const stream = createReadStream(full, range ? { start: range.start, end: range.end } : {});
    return Readable.toWeb(stream) as ReadableStream<Uint8Array>;
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertScopedPrefix(prefix);
    // Keys are grouped by folder: a prefix ending in "/" removes that folder whole.
    if (prefix.endsWith("/")) {
      await rm(this.resolve(prefix.slice(0, -1)), { recursive: true, force: true });
      return;
    }
    for (const key of await this.list(prefix)) await rm(this.resolve(key), { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (dir: string, rel: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const key = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) await walk(path.join(dir, e.name), key);
        else if (!e.name.endsWith(".tmp") && key.startsWith(prefix)) out.push(key);
      }
    };
    await mkdir(this.root, { recursive: true });
    await walk(this.root, "");
    return out.sort();
  }
}
