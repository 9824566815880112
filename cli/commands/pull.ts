// dropsite pull: a version of a drop written back out as files. The version's listing (paths,
// sizes, SHA-256) pins the version; its archive is streamed to a temporary file, and each entry
// is written inside the target folder only: no absolute path, no "..", never through a symlink
// or over a file in the way, each file checked against the listing's hash.
import { createHash } from "node:crypto";
import { constants, createReadStream, createWriteStream } from "node:fs";
import { lstat, mkdir, mkdtemp, open, readdir, realpath, rm, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { pipeline } from "node:stream/promises";
import { createInflateRaw } from "node:zlib";
import type { components } from "../../client";
import { answer, apiClient } from "../core/api";
import { requireKey, usageError, type Command, type Flags, type Target } from "../core/command";
import { CliError, EXIT } from "../core/errors";
import { formatBytes, print, progress } from "../core/output";

type Listed = components["schemas"]["VersionFiles"]["files"][number];

const PULL_USAGE = "dropsite pull <slug> [dir] [--at N] [--force]";

const refuse = (message: string, hint?: string) => new CliError(message, EXIT.usage, { code: "unsafe_path", hint });

interface Entry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

/** The entries of a zip file from its central directory (the archive the API made: no ZIP64). */
async function readEntries(fh: FileHandle, length: number): Promise<Entry[]> {
  const tail = Math.min(length, 22 + 0xffff);
  const end = Buffer.alloc(tail);
  await fh.read(end, 0, tail, length - tail);
  const at = end.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (at < 0) throw new CliError("The archive the API sent is not a zip.", EXIT.network, { code: "bad_response" });
  const count = end.readUInt16LE(at + 10);
  const size = end.readUInt32LE(at + 12);
  const offset = end.readUInt32LE(at + 16);
  const cd = Buffer.alloc(size);
  await fh.read(cd, 0, size, offset);
  const entries: Entry[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (cd.readUInt32LE(p) !== 0x02014b50)
      throw new CliError("The archive the API sent is corrupt.", EXIT.network, { code: "bad_response" });
    const nameLen = cd.readUInt16LE(p + 28);
    entries.push({
      method: cd.readUInt16LE(p + 10),
      compressedSize: cd.readUInt32LE(p + 20),
      size: cd.readUInt32LE(p + 24),
      localOffset: cd.readUInt32LE(p + 42),
      name: cd.subarray(p + 46, p + 46 + nameLen).toString("utf8"),
    });
    p += 46 + nameLen + cd.readUInt16LE(p + 30) + cd.readUInt16LE(p + 32);
  }
  return entries;
}

/** A drop's path as segments, or a refusal: relative, forward slashes, no "." or "..", no control characters. */
function segmentsOf(name: string): string[] {
  const segs = name.split("/");
  // eslint-disable-next-line no-control-regex
  const bad = /[\u0000-\u001f\\]/.test(name) || segs.some((s) => s === "" || s === "." || s === "..");
  if (bad || path.isAbsolute(name) || /^[a-zA-Z]:/.test(name))
    throw refuse(`Refusing the path ${JSON.stringify(name)}: it is not a plain relative path.`);
  return segs;
}

/** Makes each folder of `segs` under `root`, refusing a symlink or a file where a folder goes. */
async function folderFor(root: string, segs: string[]): Promise<string> {
  let dir = root;
  for (const seg of segs) {
    dir = path.join(dir, seg);
    const st = await lstat(dir).catch(() => null);
    if (st?.isSymbolicLink())
      throw refuse(`Refusing to write through the symbolic link ${dir}.`, "Remove it, or pull into an empty folder.");
    if (st && !st.isDirectory())
      throw refuse(
        `Refusing to replace ${dir}: it is a file where the drop has a folder.`,
        "Remove it, or pull into an empty folder.",
      );
    if (!st) await mkdir(dir);
  }
  return dir;
}

/** Writes one entry's bytes to `dest` (never through a symlink) and checks them against the listing. */
async function writeEntry(zip: string, fh: FileHandle, e: Entry, want: Listed, dest: string): Promise<void> {
  const st = await lstat(dest).catch(() => null);
  if (st?.isSymbolicLink())
    throw refuse(`Refusing to write through the symbolic link ${dest}.`, "Remove it, or pull into an empty folder.");
  if (st && !st.isFile()) throw refuse(`Refusing to replace ${dest}: it is not a file.`);
  const local = Buffer.alloc(30);
  await fh.read(local, 0, 30, e.localOffset);
  const start = e.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  const out = await open(
    dest,
    constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0),
    0o644,
  );
  const hash = createHash("sha256");
  let written = 0;
  const check = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      written += chunk.byteLength;
      done(null, chunk);
    },
  });
  const sink = out.createWriteStream();
  if (e.compressedSize === 0) await out.close();
  else {
    const source = createReadStream(zip, { start, end: start + e.compressedSize - 1 });
    if (e.method === 8) await pipeline(source, createInflateRaw(), check, sink);
    else await pipeline(source, check, sink);
  }
  if (written !== want.size || hash.digest("hex") !== want.hash)
    throw new CliError(
      `${want.path} did not arrive intact (its size or SHA-256 differs from the listing).`,
      EXIT.network,
      {
        code: "bad_response",
      },
    );
}

async function cmdPull(target: Target, args: string[], flags: Flags): Promise<void> {
  requireKey(target);
  const [slug, dirArg] = args;
  if (args.length < 1 || args.length > 2 || slug === undefined) throw usageError(PULL_USAGE);
  if (flags.at !== undefined && !/^\d{1,10}$/.test(flags.at))
    throw new CliError(
      `--at takes a version number (dropsite versions ${slug} lists them), got ${JSON.stringify(flags.at)}`,
      EXIT.usage,
    );
  const client = apiClient(target);
  const listing = await answer(
    client.GET("/drops/{slug}/files", {
      params: { path: { slug }, query: flags.at === undefined ? {} : { version: flags.at } },
    }),
  );

  const dir = path.resolve(dirArg ?? slug);
  const existing = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return null;
    throw refuse(`Cannot pull into ${dir}: ${err.message}`);
  });
  if (existing && existing.length > 0 && !flags.force)
    throw new CliError(`${dir} is not empty.`, EXIT.usage, {
      code: "not_empty",
      hint: "Pull into a new or empty folder, or add --force to write over the drop's paths in it.",
    });
  if (!existing) await mkdir(dir, { recursive: true });
  const root = await realpath(dir);

  const total = listing.files.reduce((n, f) => n + f.size, 0);
  const tmp = await mkdtemp(path.join(tmpdir(), "dropsite-pull-"));
  const zip = path.join(tmp, "archive.zip");
  try {
    const bar = progress("Downloading", total, { quiet: flags.quiet, unit: "bytes" });
    try {
      // The listing's version pins the archive; its body is streamed to the file, never held whole.
      const archive = await answer(
        client.GET("/drops/{slug}/archive", {
          params: { path: { slug }, query: { version: String(listing.version) } },
          parseAs: "stream",
        }),
      );
      if (!archive) throw new CliError("The API sent no archive.", EXIT.network, { code: "bad_response" });
      let received = 0;
      const count = new Transform({
        transform(chunk: Buffer, _enc, done) {
          bar.update(Math.min((received += chunk.byteLength), total));
          done(null, chunk);
        },
      });
      // The DOM's ReadableStream type and Node's are one class at run time.
      await pipeline(Readable.fromWeb(archive as NodeReadableStream<Uint8Array>), count, createWriteStream(zip));
    } catch (err) {
      bar.abort();
      throw err;
    }
    bar.done();

    const byPath = new Map(listing.files.map((f) => [f.path, f]));
    const fh = await open(zip, "r");
    try {
      const entries = await readEntries(fh, (await fh.stat()).size);
      const writing = progress("Writing", entries.length, { quiet: flags.quiet, unit: "files" });
      let n = 0;
      for (const e of entries) {
        const want = byPath.get(e.name);
        if (!want)
          throw new CliError(`The archive holds ${JSON.stringify(e.name)}, which the listing does not.`, EXIT.network, {
            code: "bad_response",
          });
        const segs = segmentsOf(e.name);
        const folder = await folderFor(root, segs.slice(0, -1));
        try {
          await writeEntry(zip, fh, e, want, path.join(folder, segs.at(-1)!));
        } catch (err) {
          writing.abort();
          throw err;
        }
        byPath.delete(e.name);
        writing.update(++n);
      }
      writing.done();
      if (byPath.size > 0)
        throw new CliError(`The archive lacks ${[...byPath.keys()].slice(0, 5).join(", ")}.`, EXIT.network, {
          code: "bad_response",
        });
    } finally {
      await fh.close();
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  const result = { slug, version: listing.version, dir: root, files: listing.files.length, bytes: total };
  if (flags.json) return print(result);
  process.stdout.write(
    `Pulled version ${listing.version} of ${slug}: ${listing.files.length} files, ${formatBytes(total)} into ${root}\n`,
  );
}

export const pull: Command = {
  usage: PULL_USAGE,
  about:
    "Write a version of a drop (the live one, or --at N) into a folder, its _redirects and _headers too: dir defaults to a folder named after the slug and must be new or empty unless --force. Never writes outside it, through a symbolic link, or over a file where the drop has a folder.",
  run: cmdPull,
};
