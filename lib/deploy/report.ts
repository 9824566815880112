import { LRUCache } from "lru-cache";
import { Parser } from "htmlparser2";
import type { AppContext } from "../context";
import { contentTypeFor } from "../files/content-type";
import { API_KEY_PATTERN } from "../patterns";
import { LARGE_FILE_WARNING_BYTES } from "../plans";
import type { DeployReport } from "../schemas";
import { dropPath, resolvePath } from "../serve/paths";
import { mapLimit } from "../storage/types";
import type { OnBytes } from "./contents";
import type { InputFile } from "./paths";

// The deploy report: what a deploy's files refer to that the drop does not hold, and likely
// mistakes (no index.html, very large files, paths that differ only by case, secrets). A pure
// function over paths and bytes (buildReport), and the step of the deploy flow that gathers
// the bytes the request does not hold from storage, within a budget (reportFor). Advisory:
// it never refuses a deploy. A secret is described by kind and line, never quoted.

const MB = 1024 * 1024;

/** Bytes of one file that are checked; the rest of a longer file is not (a not_scanned warning says so). */
export const SCAN_BYTES_PER_FILE = 4 * MB;
/** Bytes checked per deploy in all; files past it are not checked (and listed as not_scanned). */
export const SCAN_BYTES_PER_DEPLOY = 32 * MB;
/** Bytes that one deploy reads back from storage to check files whose bytes it does not hold. */
export const READ_BYTES_PER_DEPLOY = 16 * MB;
/** Entries per list; the rest are counted in left_off. */
export const REPORT_LIST_CAP = 100;

/** Contents whose scans are remembered per process (see ContentScan), and their approximate bytes. */
export const SCAN_CACHE_ENTRIES = 50_000;
export const SCAN_CACHE_BYTES = 32 * MB;

const READ_CONCURRENCY = 8;

export interface ReportFile {
  path: string;
  size: number;
  /** The file's bytes, or their first part; undefined when they were not read. */
  bytes?: Uint8Array;
  /** What its bytes were found to hold, instead of the bytes (a remembered scan of the same content). */
  scan?: ContentScan;
}

export interface ReportInput {
  /** The files of this request. */
  files: readonly ReportFile[];
  /** Paths the drop already holds (appends): references to them are not missing. */
  existingPaths?: readonly string[];
}

type Warning = DeployReport["warnings"][number];
type SecretKind = NonNullable<Warning["secret_kind"]>;

/**
 * What a file's first `scanned` bytes hold, read as a file of `kind`, whatever its path: the
 * references as written (they resolve against the path only when the report is made, since one
 * content can sit at two paths), the href of an HTML document's first <base href>, and where
 * secrets are, by kind, first line and count (never their text). Remembered per content.
 */
export interface ContentScan {
  kind: TextKind;
  scanned: number;
  refs: string[];
  baseHref: string | null;
  secrets: { kind: SecretKind; line: number; count: number }[];
}

// --- what a file is -------------------------------------------------------------------------

type TextKind = "html" | "css" | "js" | "text";

function textKind(path: string): TextKind | null {
  const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
  if (ext === "html" || ext === "htm" || ext === "xhtml") return "html";
  if (ext === "css") return "css";
  if (ext === "js" || ext === "mjs") return "js";
  return /^(text\/|application\/(json|javascript|xml|manifest\+json|ld\+json)|image\/svg\+xml)/.test(
    contentTypeFor(path),
  )
    ? "text"
    : null;
}

// --- references -----------------------------------------------------------------------------

const ORIGIN = "https://drop.invalid";

/** The URL of a drop file, as a browser on the drop's host sees it. */
function fileUrl(path: string): string {
  return `${ORIGIN}/${path.split("/").map(encodeURIComponent).join("/")}`;
}

/**
 * The drop path a reference asks for, or null when it does not ask the drop for a file:
 * fragments, URLs with a scheme or a host, template placeholders, paths no file can have.
 */
function targetOf(ref: string, base: string): string | null {
  if (
    ref === "" ||
    ref.startsWith("#") ||
    ref.startsWith("?") ||
    ref.startsWith("//") ||
    /^[a-z][a-z0-9+.-]*:/i.test(ref)
  )
    return null;
  if (/\{\{|\{%|\$\{|<%|[{}]/.test(ref)) return null;
  let url: URL;
  try {
    url = new URL(ref, base);
  } catch {
    return null;
  }
  if (url.origin !== ORIGIN) return null;
  return dropPath(url.pathname);
}

/** The candidates of a srcset attribute (HTML's "parse a srcset attribute", without descriptors). */
function srcsetUrls(value: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < value.length) {
    while (i < value.length && /[\s,]/.test(value[i]!)) i++;
    const start = i;
    while (i < value.length && !/\s/.test(value[i]!)) i++;
    let url = value.slice(start, i);
    const trailing = /,+$/.exec(url);
    if (trailing) url = url.slice(0, trailing.index);
    else {
      // Skip the descriptors up to the next comma outside parentheses.
      let depth = 0;
      while (i < value.length && (depth > 0 || value[i] !== ",")) {
        if (value[i] === "(") depth++;
        else if (value[i] === ")") depth = Math.max(0, depth - 1);
        i++;
      }
    }
    if (url) out.push(url);
  }
  return out;
}

/** url() and @import references of a style sheet. */
export function cssReferences(css: string): string[] {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, " ");
  const out: string[] = [];
  for (const m of text.matchAll(/@import\s+(["'])([^"'\n]*)\1/gi)) out.push(m[2]!);
  for (const m of text.matchAll(/\burl\(\s*(?:"([^"\n]*)"|'([^'\n]*)'|([^)"'\s]*))\s*\)/gi))
    out.push((m[1] ?? m[2] ?? m[3] ?? "").trim());
  return out;
}

/** Relative specifiers of a module's static and dynamic imports (bare specifiers are left to import maps). */
export function moduleReferences(js: string): string[] {
  const text = js.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/^\s*\/\/.*$/gm, "");
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|[^.\w$])(?:import|export)\s*(?:[\w$*{}\s,]*?\s*\bfrom\s*)?(["'])([^"'\n]+)\1/g))
    out.push(m[2]!);
  for (const m of text.matchAll(/(?:^|[^.\w$])import\s*\(\s*(["'`])([^"'`\n]+)\1\s*\)/g)) out.push(m[2]!);
  return out.filter((s) => s.startsWith("./") || s.startsWith("../") || s.startsWith("/"));
}

/** Attributes that name a resource or a page, on any element (`href` of <base> aside). */
const URL_ATTRIBUTES = ["src", "href", "poster", "xlink:href"];
const SRCSET_ATTRIBUTES = ["srcset", "imagesrcset"];

/** The references of an HTML document as written, and the href of its first <base href>. */
function htmlReferences(html: string): { refs: string[]; baseHref: string | null } {
  const refs: string[] = [];
  let baseHref: string | null = null;
  let inside: "style" | "module" | "other" | null = null;
  let inline = "";
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === "base") {
          if (baseHref === null && attribs.href !== undefined) baseHref = attribs.href.trim();
          return;
        }
        for (const a of URL_ATTRIBUTES) {
          const v = attribs[a];
          if (v === undefined) continue;
          if (name === "link" && /\b(preconnect|dns-prefetch)\b/i.test(attribs.rel ?? "")) continue;
          refs.push(v.trim());
        }
        if (name === "object" && attribs.data !== undefined) refs.push(attribs.data.trim());
        for (const a of SRCSET_ATTRIBUTES) if (attribs[a] !== undefined) refs.push(...srcsetUrls(attribs[a]));
        if (attribs.style) refs.push(...cssReferences(attribs.style));
        if (name === "style") inside = "style";
        else if (name === "script")
          inside =
            attribs.src === undefined && (attribs.type ?? "").trim().toLowerCase() === "module" ? "module" : "other";
        inline = "";
      },
      ontext(text) {
        if (inside === "style" || inside === "module") inline += text;
      },
      onclosetag(name) {
        if ((name === "style" && inside === "style") || (name === "script" && inside !== null && inside !== "style")) {
          if (inside === "style") refs.push(...cssReferences(inline));
          if (inside === "module") refs.push(...moduleReferences(inline));
          inside = null;
          inline = "";
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return { refs, baseHref };
}

function referencesOf(kind: TextKind, text: string): { refs: string[]; baseHref: string | null } {
  if (kind === "html") return htmlReferences(text);
  if (kind === "css") return { refs: cssReferences(text), baseHref: null };
  if (kind === "js") return { refs: moduleReferences(text), baseHref: null };
  return { refs: [], baseHref: null };
}

/** The URL a file's relative references resolve against, or null when they leave the drop (or it has none). */
function baseOf(scan: ContentScan, path: string): string | null {
  if (scan.kind === "text") return null;
  if (scan.baseHref === null) return fileUrl(path);
  // A base elsewhere sends every relative reference elsewhere.
  try {
    const resolved = new URL(scan.baseHref, fileUrl(path));
    return resolved.origin === ORIGIN ? resolved.href : null;
  } catch {
    return null;
  }
}

// --- secrets --------------------------------------------------------------------------------

const unanchored = (re: RegExp) => re.source.replace(/^\^/, "").replace(/\$$/, "");

/**
 * Shapes of secrets, each with its kind and the literals one of which any match contains (a
 * fast `includes` first: most text holds none, and the patterns then never run). Bounded on
 * both sides so longer words do not match.
 */
const SECRET_PATTERNS: { kind: SecretKind; re: RegExp; what: string; literals: string[] }[] = [
  {
    kind: "dropsite_api_key",
    re: new RegExp(`(?<![A-Za-z0-9_-])${unanchored(API_KEY_PATTERN)}(?![A-Za-z0-9_-])`, "g"),
    what: "a dropsite API key (sp_…)",
    literals: ["sp_"],
  },
  {
    kind: "aws_access_key",
    re: /(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])/g,
    what: "an AWS access key id",
    literals: ["AKIA", "ASIA"],
  },
  {
    kind: "github_token",
    re: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{60,255})(?![A-Za-z0-9_])/g,
    what: "a GitHub token",
    literals: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
  },
  {
    kind: "stripe_secret_key",
    re: /(?<![A-Za-z0-9_])(?:sk|rk)_live_[A-Za-z0-9]{20,}(?![A-Za-z0-9])/g,
    what: "a Stripe live secret key",
    literals: ["k_live_"],
  },
  {
    kind: "google_api_key",
    re: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g,
    what: "a Google API key",
    literals: ["AIza"],
  },
  {
    kind: "slack_token",
    re: /(?<![A-Za-z0-9])(?:xox[abposr]-[0-9A-Za-z-]{10,}|hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]+)/g,
    what: "a Slack token or webhook",
    literals: ["xox", "hooks.slack.com"],
  },
  {
    kind: "private_key",
    re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g,
    what: "a private key",
    literals: ["PRIVATE KEY"],
  },
];

/** The shapes without their bounds: for what is shown, a key inside a longer word is hidden too. */
const LOOSE_SECRET_PATTERNS = SECRET_PATTERNS.map(({ re }) => new RegExp(re.source.replace(/\(\?<?[!=][^)]*\)/g, "")));

/** The patterns whose literals occur in the text. */
const candidates = (text: string) => SECRET_PATTERNS.filter((p) => p.literals.some((l) => text.includes(l)));

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

function secretsOf(text: string): ContentScan["secrets"] {
  const out: ContentScan["secrets"] = [];
  for (const { kind, re } of candidates(text)) {
    re.lastIndex = 0;
    let first = -1;
    let count = 0;
    for (const m of text.matchAll(re)) {
      if (first < 0) first = m.index;
      count++;
    }
    if (count > 0) out.push({ kind, line: lineAt(text, first), count });
  }
  return out;
}

const SECRET_WHAT = new Map(SECRET_PATTERNS.map((p) => [p.kind, p.what]));

function secretWarnings(path: string, scan: ContentScan): Warning[] {
  return scan.secrets.map(({ kind, line, count }) => ({
    path,
    kind: "secret",
    secret_kind: kind,
    message: `Line ${line} holds what looks like ${SECRET_WHAT.get(kind)}${count > 1 ? ` (${count} such strings in this file)` : ""}. Anyone can read it at the drop's URL: revoke it, remove it and deploy again.`,
  }));
}

const decoder = new TextDecoder("utf-8");

/** Scans the first `length` bytes of a file's content as a file of `kind`. */
function scanBytes(kind: TextKind, bytes: Uint8Array, length: number): ContentScan {
  const text = decoder.decode(bytes.subarray(0, length));
  return { kind, scanned: Math.min(length, bytes.byteLength), secrets: secretsOf(text), ...referencesOf(kind, text) };
}

/** `.env`, `.env.local`, `config/.env.production`; not the usual templates (.env.example, .sample, .template). */
function isEnvFile(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  return (name === ".env" || name.startsWith(".env.")) && !/\.(example|sample|template|dist)$/.test(name);
}

// --- the report ----------------------------------------------------------------------------

const mb = (n: number) => `${(n / MB).toFixed(1)} MB`;

/** The display of a reference: without query and fragment, and never a secret. */
function shownRef(ref: string): string {
  const plain = ref.replace(/[?#][\s\S]*$/, "").slice(0, 300);
  return LOOSE_SECRET_PATTERNS.some((re) => re.test(plain)) ? "(a reference shaped like a secret)" : plain;
}

/** The report of a deploy's files, against the drop's whole path list. Pure. */
export function buildReport(input: ReportInput): DeployReport {
  const all = new Set<string>([...(input.existingPaths ?? []), ...input.files.map((f) => f.path)]);
  const has = (p: string) => all.has(p);
  const answers = (p: string) => {
    const r = resolvePath(has, p);
    return r !== undefined && ("redirect" in r || r.status === 200);
  };
  const missing: DeployReport["missing_references"] = [];
  const warnings: Warning[] = [];

  if (!answers(""))
    warnings.push({ kind: "no_index", message: "No index.html at the root: the drop's own address answers 404." });

  // Case-only clashes among the whole drop that involve a file of this request.
  const fresh = new Set(input.files.map((f) => f.path));
  const byLower = new Map<string, string[]>();
  for (const p of all) byLower.set(p.toLowerCase(), [...(byLower.get(p.toLowerCase()) ?? []), p]);
  for (const group of byLower.values()) {
    if (group.length < 2 || !group.some((p) => fresh.has(p))) continue;
    const [first, ...others] = group.sort();
    warnings.push({
      path: first,
      kind: "case_clash",
      message: `Differs only by letter case from ${others.map((o) => JSON.stringify(o)).join(", ")}: URLs are case-sensitive here, but not on every file system or host this site may move to.`,
    });
  }

  let budget = SCAN_BYTES_PER_DEPLOY;
  for (const f of input.files) {
    if (f.size > LARGE_FILE_WARNING_BYTES) {
      warnings.push({
        path: f.path,
        kind: "large_file",
        message: `${mb(f.size)}, over ${mb(LARGE_FILE_WARNING_BYTES)}: slow to load for visitors on mobile networks.`,
      });
    }
    if (isEnvFile(f.path)) {
      warnings.push({
        path: f.path,
        kind: "secret",
        secret_kind: "env_file",
        message:
          "An environment file is published: anyone can read it at the drop's URL. Environment files usually hold secrets; remove it and revoke what it holds.",
      });
    }
    const kind = textKind(f.path);
    if (kind === null || f.size === 0) continue;
    const available = f.scan?.scanned ?? f.bytes?.byteLength;
    if (available === undefined || budget <= 0) {
      warnings.push({
        path: f.path,
        kind: "not_scanned",
        message:
          "Not checked for references or secrets: past what one deploy checks (its content was sent by reference or the deploy is large).",
      });
      continue;
    }
    const length = Math.min(available, SCAN_BYTES_PER_FILE, budget);
    budget -= length;
    if (length < f.size) {
      warnings.push({
        path: f.path,
        kind: "not_scanned",
        message: `Only its first ${mb(length)} were checked for references and secrets.`,
      });
    }
    const scan =
      f.scan?.kind === kind && f.scan.scanned === length
        ? f.scan
        : f.bytes
          ? scanBytes(kind, f.bytes, length)
          : undefined;
    if (!scan) {
      warnings.push({ path: f.path, kind: "not_scanned", message: "Not checked for references or secrets this time." });
      continue;
    }
    warnings.push(...secretWarnings(f.path, scan));
    const base = baseOf(scan, f.path);
    if (base === null) continue;
    const seen = new Set<string>();
    for (const raw of scan.refs) {
      const ref = raw.trim();
      if (seen.has(ref)) continue;
      seen.add(ref);
      const target = targetOf(ref, base);
      if (target !== null && !answers(target)) missing.push({ path: f.path, ref: shownRef(ref) });
    }
  }

  const report: DeployReport = {
    missing_references: missing.slice(0, REPORT_LIST_CAP),
    warnings: warnings.slice(0, REPORT_LIST_CAP),
  };
  if (missing.length > REPORT_LIST_CAP || warnings.length > REPORT_LIST_CAP) {
    report.left_off = {
      missing_references: Math.max(0, missing.length - REPORT_LIST_CAP),
      warnings: Math.max(0, warnings.length - REPORT_LIST_CAP),
    };
  }
  return report;
}

// --- gathering the bytes -----------------------------------------------------------------------

async function readUpTo(ctx: AppContext, storageRef: string, length: number): Promise<Uint8Array | undefined> {
  const stream = await ctx.storage.get(storageRef, { start: 0, end: length - 1 });
  if (!stream) return undefined;
  const out = new Uint8Array(length);
  let at = 0;
  const reader = stream.getReader();
  try {
    while (at < length) {
      const { done, value } = await reader.read();
      if (done) break;
      const part = value.subarray(0, length - at);
      out.set(part, at);
      at += part.byteLength;
    }
  } finally {
    // Not awaited: under Next, fetch bodies can be tee'd, and cancelling one branch of a tee
    // settles only when the other branch is cancelled too, so awaiting it can hang the deploy.
    void reader.cancel().catch(() => undefined);
  }
  return out.subarray(0, at);
}

/**
 * The report of a deploy (or append) step, from the stored file rows (path, size, storage ref)
 * and the request's files. Bytes the request holds in memory are checked as they are; the text
 * files whose bytes it does not hold (given by reference, or read from a zip only to be stored)
 * are read back from storage (their first SCAN_BYTES_PER_FILE) while READ_BYTES_PER_DEPLOY
 * lasts; the rest are listed as not_scanned. A failed read only leaves that file unchecked, and
 * the promise never rejects: the flow starts it before committing and may drop it.
 */
export async function reportFor(
  ctx: AppContext,
  files: readonly InputFile[],
  stored: readonly StoredRow[],
  existingPaths?: readonly string[],
): Promise<DeployReport> {
  try {
    return await gatherAndBuild(ctx, files, stored, existingPaths);
  } catch (err) {
    console.error("[report] could not make the deploy report", err);
    return {
      missing_references: [],
      warnings: [
        { kind: "not_scanned", message: "The files could not be checked this time; the deploy itself succeeded." },
      ],
    };
  }
}

// --- remembered scans ------------------------------------------------------------------------

type ScanCache = LRUCache<string, ContentScan>;

const CACHE_KEY = Symbol.for("dropsite.reportScans");
const cacheSlot = globalThis as unknown as Record<symbol, WeakMap<AppContext, ScanCache> | undefined>;

/** Remembered scans by `scope:sha256`, bounded by count and by an estimate of their bytes. */
function scanCache(ctx: AppContext): ScanCache {
  const all = (cacheSlot[CACHE_KEY] ??= new WeakMap());
  let c = all.get(ctx);
  if (!c) {
    c = new LRUCache<string, ContentScan>({
      max: SCAN_CACHE_ENTRIES,
      maxSize: SCAN_CACHE_BYTES,
      sizeCalculation: (scan, key) =>
        256 +
        key.length * 2 +
        scan.refs.reduce((n, r) => n + 64 + r.length * 2, 0) +
        (scan.baseHref?.length ?? 0) * 2 +
        scan.secrets.length * 64,
    });
    all.set(ctx, c);
  }
  return c;
}

/** The remembered scan of a content of a scope, read as `kind` up to `scanned` bytes. */
function recall(c: ScanCache, key: string, kind: TextKind, scanned: number): ContentScan | undefined {
  const scan = c.get(key);
  return scan && scan.kind === kind && scan.scanned === scanned ? scan : undefined;
}

function remember(c: ScanCache, key: string, scan: ContentScan): void {
  // An entry larger than the whole budget is refused by the cache (not stored), as before.
  // The references are copied out of the decoded file: V8 makes a substring a view of the
  // string it was cut from, so a remembered reference would keep the whole file's text alive
  // (a zip deploy's memory then grew with every text file it scanned).
  c.set(key, {
    ...scan,
    refs: scan.refs.map(ownString),
    baseHref: scan.baseHref === null ? null : ownString(scan.baseHref),
  });
}

/** A copy of a string that shares no memory with the string it may have been cut from. */
function ownString(s: string): string {
  return Buffer.from(s, "utf8").toString("utf8");
}

interface StoredRow {
  path: string;
  size: number;
  storageRef: string;
  sha256: string;
  /** The content scope of its bytes; without one, nothing is remembered. */
  scope?: string | null;
}

interface ScanStep {
  kind: TextKind;
  /** Bytes at hand: held by the request, or to be read back (the first SCAN_BYTES_PER_FILE). */
  available: number;
  scanned: number;
  /** The bytes are not held by the request: read back from storage (or scanned while stored). */
  read: boolean;
}

/**
 * Which files are checked and how far: the same budgets, in the same order, as buildReport
 * (reads while READ_BYTES_PER_DEPLOY lasts, checks while SCAN_BYTES_PER_DEPLOY lasts), so a
 * remembered scan stands in for exactly the bytes buildReport would have checked. A remembered
 * content counts against both budgets as if read: the report is the same with or without it.
 */
function scanPlan(files: readonly { path: string; size: number; held: boolean }[]): (ScanStep | null)[] {
  let readBudget = READ_BYTES_PER_DEPLOY;
  let scanBudget = SCAN_BYTES_PER_DEPLOY;
  return files.map((f) => {
    if (f.size === 0) return null;
    const kind = textKind(f.path);
    let available = f.held ? f.size : undefined;
    if (!f.held && kind !== null && Math.min(f.size, SCAN_BYTES_PER_FILE) <= readBudget) {
      available = Math.min(f.size, SCAN_BYTES_PER_FILE);
      readBudget -= available;
    }
    if (kind === null || available === undefined || scanBudget <= 0) return null;
    const scanned = Math.min(available, SCAN_BYTES_PER_FILE, scanBudget);
    scanBudget -= scanned;
    return { kind, available, scanned, read: !f.held };
  });
}

const sizeOf = (f: InputFile) => f.ref?.size ?? f.source?.size ?? f.bytes.byteLength;

/**
 * Makes, while a deploy holds the bytes of its deferred files (zip entries), the scans its
 * report would read back from storage afterwards, and remembers them per content: the report
 * then finds them (gatherAndBuild) and reads nothing back. Pass the result to storeContents.
 */
export function scanWhileStoring(ctx: AppContext, scope: string, files: readonly InputFile[]): OnBytes {
  const plan = scanPlan(
    files.map((f) => ({ path: f.path, size: sizeOf(f), held: !f.ref && f.bytes.byteLength === sizeOf(f) })),
  );
  const steps = new Map(files.map((f, i) => [f, plan[i]]));
  const cache = scanCache(ctx);
  return (file, sha256, bytes) => {
    const step = steps.get(file);
    if (!step?.read) return;
    const key = `${scope}:${sha256}`;
    if (!recall(cache, key, step.kind, step.scanned)) remember(cache, key, scanBytes(step.kind, bytes, step.scanned));
  };
}

/** The report's input from the stored rows: held bytes checked, remembered scans used, the rest read back. */
async function gatherAndBuild(
  ctx: AppContext,
  files: readonly InputFile[],
  stored: readonly StoredRow[],
  existingPaths?: readonly string[],
): Promise<DeployReport> {
  const cache = scanCache(ctx);
  const held = new Map(files.map((f) => [f.path, f]));
  const heldBytes = (s: StoredRow) => {
    const f = held.get(s.path);
    return f && !f.ref && f.bytes.byteLength === s.size ? f.bytes : undefined;
  };
  const plan = scanPlan(stored.map((s) => ({ path: s.path, size: s.size, held: heldBytes(s) !== undefined })));
  const reads: {
    index: number;
    storageRef: string;
    length: number;
    kind: TextKind;
    scanned: number;
    key: string | null;
  }[] = [];
  const input: ReportFile[] = stored.map((s, index) => {
    if (s.size === 0) return { path: s.path, size: 0, bytes: new Uint8Array() };
    const bytes = heldBytes(s);
    const step = plan[index];
    if (!step) return { path: s.path, size: s.size, bytes };
    const key = s.scope ? `${s.scope}:${s.sha256}` : null;
    const scan = key === null ? undefined : recall(cache, key, step.kind, step.scanned);
    if (scan) return { path: s.path, size: s.size, scan };
    if (bytes) {
      const fresh = scanBytes(step.kind, bytes, step.scanned);
      if (key !== null) remember(cache, key, fresh);
      return { path: s.path, size: s.size, scan: fresh };
    }
    reads.push({
      index,
      storageRef: s.storageRef,
      length: step.available,
      kind: step.kind,
      scanned: step.scanned,
      key,
    });
    return { path: s.path, size: s.size };
  });
  await mapLimit(reads, READ_CONCURRENCY, async (r) => {
    try {
      const bytes = await readUpTo(ctx, r.storageRef, r.length);
      if (!bytes) return;
      const scan = scanBytes(r.kind, bytes, r.scanned);
      if (r.key !== null) remember(cache, r.key, scan);
      input[r.index]!.scan = scan;
    } catch (err) {
      console.error("[report] could not read a content back", err instanceof Error ? err.message : err);
    }
  });
  return buildReport({ files: input, existingPaths });
}
