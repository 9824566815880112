import type { RedirectRule } from "../rules/types";
import { excerptOf, type Finding } from "./findings";
import { scanHtml, type LinkedUrl } from "./html";
import { scanScript } from "./script";
import { applyEffects, assumedForm, judgeForms } from "./forms";
import { isOffsite, OWN_ORIGIN, resolveUrl } from "./urls";

// The deploy scan of one file: its type (every file), and for HTML and JavaScript what the
// page or script does (./html, ./script). Pure: bytes in, findings and linked URLs out. The
// seventh rule, web-risk, looks the linked URLs up (./web-risk); ./deploy runs it all in a deploy.

/** The brands a password page may not name (SCAN_BRANDS replaces the list): the most phished. */
export const DEFAULT_BRANDS: readonly string[] = [
  "paypal",
  "apple",
  "icloud",
  "microsoft",
  "office 365",
  "outlook",
  "google",
  "gmail",
  "facebook",
  "instagram",
  "whatsapp",
  "netflix",
  "amazon",
  "dhl",
  "fedex",
  "metamask",
  "coinbase",
  "binance",
];

/** Names that download and run as programs: `executable` whatever the bytes. */
export const EXECUTABLE_EXTENSIONS: readonly string[] = [
  "exe",
  "scr",
  "msi",
  "dll",
  "apk",
  "dmg",
  "bat",
  "cmd",
  "ps1",
  "vbs",
  "jar",
];

/** Bytes of a file's start that decide its type. */
export const HEAD_BYTES = 64;

export interface FileScanOptions {
  /** Lower-case host names that are the drop's own. */
  ownHosts: ReadonlySet<string>;
  /** Brand names as SCAN_BRANDS gives them (or DEFAULT_BRANDS). */
  brands: readonly string[];
}

export interface FileScan {
  findings: Finding[];
  urls: LinkedUrl[];
}

type ScannedKind = "html" | "js";

const extensionOf = (path: string) => {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? "" : name.slice(dot + 1).toLowerCase();
};

/** Whether a file's markup or script is read (its first bytes are, whatever its kind). */
export function scannedKind(path: string): ScannedKind | null {
  const ext = extensionOf(path);
  if (ext === "html" || ext === "htm" || ext === "xhtml") return "html";
  if (ext === "js" || ext === "mjs" || ext === "cjs") return "js";
  return null;
}

/** The brands as matched: lower case, whitespace collapsed, empty ones left out. */
export function brandList(brands: readonly string[]): string[] {
  return brands.map((b) => b.toLowerCase().replace(/\s+/g, " ").trim()).filter(Boolean);
}

const startsWith = (head: Uint8Array, magic: number[]) => magic.every((b, i) => head[i] === b);

/** What executable a file's first bytes are (MZ, ELF, Mach-O), or null. */
export function executableHeader(head: Uint8Array): string | null {
  // "MZ" also starts text ("MZ Lab notes"): a DOS header's first 64 bytes always hold a zero byte.
  if (startsWith(head, [0x4d, 0x5a]) && head.byteLength >= HEAD_BYTES && head.subarray(0, HEAD_BYTES).includes(0))
    return "a Windows executable (MZ header)";
  if (startsWith(head, [0x7f, 0x45, 0x4c, 0x46])) return "an ELF executable";
  for (const magic of [
    [0xfe, 0xed, 0xfa, 0xce],
    [0xfe, 0xed, 0xfa, 0xcf],
    [0xce, 0xfa, 0xed, 0xfe],
    [0xcf, 0xfa, 0xed, 0xfe],
  ])
    if (startsWith(head, magic)) return "a Mach-O executable";
  // 0xCAFEBABE starts universal Mach-O binaries and Java classes: a universal binary counts
  // its architectures there (a few), a class its version (45 and up).
  if (startsWith(head, [0xca, 0xfe, 0xba, 0xbe]) && head.byteLength >= 8) {
    const archs = ((head[4]! << 24) | (head[5]! << 16) | (head[6]! << 8) | head[7]!) >>> 0;
    if (archs > 0 && archs < 45) return "a universal Mach-O executable";
  }
  return null;
}

/** The `executable` finding of a file, from its name and first bytes, or null. */
export function executableFinding(path: string, head: Uint8Array): Finding | null {
  const header = executableHeader(head);
  if (header) return { rule: "executable", file: path, line: 0, excerpt: excerptOf(`starts as ${header}`) };
  const ext = extensionOf(path);
  if (EXECUTABLE_EXTENSIONS.includes(ext))
    return { rule: "executable", file: path, line: 0, excerpt: excerptOf(`a .${ext} file`) };
  return null;
}

const decoder = new TextDecoder("utf-8");

/**
 * Scans one file: `bytes` are its first bytes as far as the scan reads them (all of a file the
 * scan reads whole, the first HEAD_BYTES of one it only types).
 */
export function scanFile(path: string, bytes: Uint8Array, opts: FileScanOptions): FileScan {
  const findings: Finding[] = [];
  const exe = executableFinding(path, bytes.subarray(0, HEAD_BYTES));
  if (exe) findings.push(exe);
  const kind = scannedKind(path);
  if (kind === null || exe) return { findings, urls: [] };
  const text = decoder.decode(bytes);
  if (kind === "js") {
    const script = scanScript(text, {
      file: path,
      firstLine: 1,
      ownHosts: opts.ownHosts,
      module: extensionOf(path) === "mjs",
      fragment: (html, firstLine) =>
        scanHtml(html, { file: path, ownHosts: opts.ownHosts, brands: opts.brands, firstLine, depth: 1 }, false),
    });
    findings.push(...script.findings);
    // Alone, a script's forms are the page's it cannot see: every reference reaches the one assumed.
    const form = assumedForm();
    applyEffects({ forms: [form], ids: new Map(), classes: new Map() }, [script.dom]);
    findings.push(...judgeForms([form], path, OWN_ORIGIN, opts.ownHosts));
    return { findings, urls: [] };
  }
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  const page = scanHtml(
    text,
    { file: path, ownHosts: opts.ownHosts, brands: opts.brands },
    name === "index.html" || name === "index.htm",
  );
  findings.push(...page.findings);
  return { findings, urls: page.urls };
}

/** The absolute URLs of other hosts that `_redirects` rules send visitors to. */
export function redirectUrls(rules: readonly RedirectRule[], ownHosts: ReadonlySet<string>): LinkedUrl[] {
  const out: LinkedUrl[] = [];
  for (const r of rules) {
    // Placeholders (:splat, :name) stand for text of the request: the host is what is written.
    const url = resolveUrl(r.to.replace(/:[A-Za-z_]\w*/g, "x"));
    if (url && isOffsite(url, ownHosts)) out.push({ url: url.href, file: "_redirects", line: r.line });
  }
  return out;
}
