import ignore, { type Ignore } from "ignore";

// Which files of a folder are published: one rule for the web page's folder drop and the
// command-line client. Pure (no Node or DOM APIs): callers pass paths and the text of the
// ignore files they found, and get back what is kept and what is left out, with the reason.
//
// Left out, in this order:
//   1. anything inside a `.git` or `node_modules` folder;
//   2. the ignore files themselves (`.gitignore`, `.dropignore`);
//   3. whatever a `.gitignore` or `.dropignore` matches, each scoped to its own folder
//      (gitignore semantics, via the `ignore` package);
//   4. dotfiles and dot-folders (`.env`, `.DS_Store`, `.vscode/`), unless asked for;
//      `.well-known/` is content on the web and is kept.

/** Folders never published, wherever they appear. */
export const ALWAYS_SKIPPED_DIRS: readonly string[] = [".git", "node_modules"];
/** Files holding ignore rules; they are read, never published. */
export const IGNORE_FILES: readonly string[] = [".gitignore", ".dropignore"];
/** Dot-names that are ordinary web content. */
const PUBLIC_DOT_NAMES = new Set([".well-known"]);

export type SkipReason = "always" | "ignore-file" | "ignored" | "dotfile";

export interface SelectOptions {
  /** Publish dotfiles such as `.env` too (rules 1 to 3 still apply). */
  includeDotfiles?: boolean;
}

export interface Skipped<T> {
  file: T;
  reason: SkipReason;
  /** The ignore file whose rules matched (reason "ignored"). */
  source?: string;
}

export interface Selection<T> {
  kept: T[];
  skipped: Skipped<T>[];
}

interface Scope {
  /** Folder of the ignore file, "" for the root, without a trailing slash. */
  base: string;
  file: string;
  rules: Ignore;
}

const basename = (p: string) => p.slice(p.lastIndexOf("/") + 1);
const dirname = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");

/** The paths among `paths` that are ignore files: read their text and pass it to `selectFiles`. */
export function ignoreFilesAmong(paths: readonly string[]): string[] {
  return paths.filter((p) => IGNORE_FILES.includes(basename(p)));
}

/** Compiles ignore files (path → text) into scoped rule sets. */
function compile(ignoreFiles: Readonly<Record<string, string>>): Scope[] {
  return Object.entries(ignoreFiles)
    .map(([file, text]) => ({ base: dirname(file), file, rules: ignore().add(text) }))
    .sort((a, b) => a.base.length - b.base.length);
}

/**
 * Why `path` (a relative POSIX path of a file) is left out, or null when it is published.
 * `isDir` asks the same about a folder, so a walker can skip it without descending.
 */
function skipReason(
  path: string,
  scopes: readonly Scope[],
  opts: SelectOptions = {},
  isDir = false,
): Omit<Skipped<unknown>, "file"> | null {
  const segments = path.split("/");
  const dirs = isDir ? segments : segments.slice(0, -1);
  if (dirs.some((s) => ALWAYS_SKIPPED_DIRS.includes(s))) return { reason: "always" };
  if (!isDir && IGNORE_FILES.includes(segments[segments.length - 1] ?? "")) return { reason: "ignore-file" };
  // A folder a rule excludes takes everything in it along (as git does): test each ancestor.
  for (let i = 1; i <= segments.length; i++) {
    const prefix = segments.slice(0, i).join("/");
    const asDir = i < segments.length || isDir;
    for (const scope of scopes) {
      if (scope.base && !prefix.startsWith(`${scope.base}/`)) continue;
      const within = scope.base ? prefix.slice(scope.base.length + 1) : prefix;
      if (within && scope.rules.ignores(asDir ? `${within}/` : within))
        return { reason: "ignored", source: scope.file };
    }
  }
  if (!opts.includeDotfiles && segments.some((s) => s.startsWith(".") && !PUBLIC_DOT_NAMES.has(s)))
    return { reason: "dotfile" };
  return null;
}

/** A matcher for walkers (the command-line client): compile once, ask per path. */
export function createFilter(ignoreFiles: Readonly<Record<string, string>>, opts: SelectOptions = {}) {
  const scopes = compile(ignoreFiles);
  return (path: string, isDir = false) => skipReason(path, scopes, opts, isDir);
}

/** Splits files into those published and those left out, with the reason for each. */
export function selectFiles<T extends { path: string }>(
  files: readonly T[],
  ignoreFiles: Readonly<Record<string, string>>,
  opts: SelectOptions = {},
): Selection<T> {
  const scopes = compile(ignoreFiles);
  const kept: T[] = [];
  const skipped: Skipped<T>[] = [];
  for (const file of files) {
    const why = skipReason(file.path, scopes, opts);
    if (why) skipped.push({ file, ...why });
    else kept.push(file);
  }
  return { kept, skipped };
}

/** Words for a reason, for people. */
export function describeSkip(s: Omit<Skipped<unknown>, "file">): string {
  switch (s.reason) {
    case "always":
      return "inside .git or node_modules";
    case "ignore-file":
      return "ignore rules, not content";
    case "ignored":
      return `matched by ${s.source ?? ".gitignore"}`;
    case "dotfile":
      return "dotfile (may hold secrets)";
  }
}
