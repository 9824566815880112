// The files of a folder to deploy, chosen as the web page's drop zone does (lib/files/ignore.ts).
import { lstat, readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { createFilter, IGNORE_FILES, type SelectOptions } from "../../lib/files/ignore";

interface LocalFile {
  rel: string;
  abs: string;
  size: number;
}

/**
 * Files of a folder, relative POSIX paths, skipping .git, node_modules and anything matched by
 * a .gitignore (at any depth, scoped to its folder) or a .dropignore.
 */
export async function collectFiles(root: string, opts: SelectOptions): Promise<LocalFile[]> {
  const out: LocalFile[] = [];
  // Ignore files found so far (path → text): each applies to its own folder and below, and the
  // walk meets a folder's ignore files before anything inside it.
  const ignoreFiles: Record<string, string> = {};
  async function walk(dir: string, rel: string): Promise<void> {
    for (const name of IGNORE_FILES) {
      try {
        ignoreFiles[rel ? `${rel}/${name}` : name] = await readFile(path.join(dir, name), "utf8");
      } catch {
        /* no such file */
      }
    }
    const skip = createFilter(ignoreFiles, opts);
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      const abs = path.join(dir, entry.name);
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      let info = await lstat(abs);
      if (info.isSymbolicLink()) {
        try {
          info = await stat(abs);
        } catch {
          continue; // dangling link
        }
        if (info.isDirectory()) continue; // never follow linked folders (cycles, escaping the root)
      }
      const isDir = info.isDirectory();
      if (skip(childRel, isDir)) continue;
      if (isDir) await walk(abs, childRel);
      else if (info.isFile()) out.push({ rel: childRel, abs, size: info.size });
    }
  }
  await walk(root, "");
  return out;
}
