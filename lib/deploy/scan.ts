import { LRUCache } from "lru-cache";
import type { AppContext } from "../context";
import type { Caller } from "../auth/caller";
import { recordAudit } from "../db/audit";
import { metrics } from "../metrics/registry";
import { withDb } from "../db/errors";
import { activeDomainsOf, recordFlaggedFindings } from "../db/scan";
import { ApiError } from "../errors";
import { withoutPort } from "../hostname";
import { SCAN_DEPLOY_BYTES, SCAN_FILE_BYTES, SCAN_URLS_PER_DEPLOY, type TierLimits } from "../plans";
import { parseRedirects } from "../rules/parse";
import { RULE_FILES } from "../rules/types";
import { excerptOf, SEVERE_RULES, type Finding } from "../scan/findings";
import type { LinkedUrl } from "../scan/html";
import {
  DEFAULT_BRANDS,
  HEAD_BYTES,
  brandList,
  executableFinding,
  redirectUrls,
  scanFile,
  scannedKind,
} from "../scan/rules";
import { normalHost, resolveUrl } from "../scan/urls";
import { lookUpUris, WEB_RISK_DEFAULT_URL } from "../scan/web-risk";
import { addressHash } from "../secret";
import { mapLimit } from "../concurrency";
import type { OnBytes } from "./contents";
import type { InputFile } from "./paths";

// The deploy scan in the deploy flow (lib/scan has the rules). Every write of files passes
// through storeFiles (./store), and so through here, before its rows commit: the bytes the
// request holds are scanned before anything is stored (a refusal then stores nothing at all),
// deferred bytes (zip entries) while they are stored, and what the request does not hold
// (references, streamed entries) is read back from storage, its first bytes only. A refusal
// after storing purges what the deploy stored, its uploads' holds ended. Findings of a deploy
// that goes through are recorded after it commits and returned for its report.

const READ_CONCURRENCY = 8;
/** Files up to this size are read back whole (see afterStore). */
const WHOLE_READ_BYTES = 64 * 1024;
/** A `_redirects` longer than this is not read back for its targets (the rule limits keep it far smaller). */
const REDIRECTS_READ_BYTES = 4 * 1024 * 1024;

/** Contents whose scans are remembered per process, and their approximate bytes (as ./report does). */
const CACHE_ENTRIES = 50_000;
const CACHE_BYTES = 16 * 1024 * 1024;
const NO_HOSTS: ReadonlySet<string> = new Set();

/** What one content holds, read at one kind of path: findings and URLs without their file. */
interface ContentScan {
  findings: Omit<Finding, "file">[];
  urls: Omit<LinkedUrl, "file">[];
}

const caches = new WeakMap<AppContext, LRUCache<string, ContentScan>>();

/** Remembered scans by scope, hash, what the path makes of the file, and bytes read. */
function cacheOf(ctx: AppContext): LRUCache<string, ContentScan> {
  let c = caches.get(ctx);
  if (!c) {
    c = new LRUCache<string, ContentScan>({
      max: CACHE_ENTRIES,
      maxSize: CACHE_BYTES,
      sizeCalculation: (v, k) =>
        128 + k.length * 2 + v.findings.reduce((n, f) => n + 96 + f.excerpt.length * 2, 0) + v.urls.length * 160,
    });
    caches.set(ctx, c);
  }
  return c;
}

/** What a file's path changes in its scan: the extension, and whether it is an index page. */
function pathKey(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  return `${name.slice(name.lastIndexOf(".") + 1)}:${name === "index.html" || name === "index.htm" ? 1 : 0}`;
}

const sizeOf = (f: InputFile) => f.ref?.size ?? f.source?.size ?? f.bytes.byteLength;
const isHeld = (f: InputFile) => !f.ref && !f.source;

export interface ScanTarget {
  /** The drop's slug (its own host). */
  slug: string;
  /** The named drop's vanity host label (`<sub>--<name>`), when it has one. */
  vanity?: string | null;
  /** Look up the drop's active custom domains (an existing drop). */
  existing?: boolean;
  /** The client address of an anonymous caller (the refusal's audit target, as a keyed hash). */
  address?: string;
}

export class DeployScan {
  readonly findings: Finding[] = [];
  private readonly urls: LinkedUrl[] = [];
  private readonly seen = new Set<InputFile>();
  private budget = SCAN_DEPLOY_BYTES;
  private looked = false;
  private scope = "";

  private constructor(
    private readonly ctx: AppContext,
    private readonly files: readonly InputFile[],
    private readonly anonymous: boolean,
    private readonly ownHosts: ReadonlySet<string>,
    private readonly tierLimits: TierLimits,
    private readonly address: string | undefined,
  ) {}

  /** The scan of a write, or null when SCAN=off. */
  static async start(
    ctx: AppContext,
    caller: Pick<Caller, "account">,
    files: readonly InputFile[],
    tierLimits: TierLimits,
    target: ScanTarget,
  ): Promise<DeployScan | null> {
    if (ctx.env.SCAN === "off") return null;
    const serve = withoutPort(ctx.env.SERVE_DOMAIN);
    const hosts = new Set([normalHost(`${target.slug}.${serve}`)]);
    if (target.vanity) hosts.add(normalHost(`${target.vanity}.${serve}`));
    if (target.existing)
      for (const h of await withDb(() => activeDomainsOf(ctx.db, target.slug))) hosts.add(normalHost(h));
    return new DeployScan(ctx, files, caller.account === null, hosts, tierLimits, target.address);
  }

  private get brands(): string[] {
    return brandList(this.ctx.env.SCAN_BRANDS ?? DEFAULT_BRANDS);
  }

  /** The bytes of a file the scan reads (charged to the deploy's budget): HEAD_BYTES for a file it only types. */
  private claim(f: InputFile, available: number): number {
    if (f.path === RULE_FILES.redirects) return Math.min(available, REDIRECTS_READ_BYTES);
    if (scannedKind(f.path) === null || this.budget <= 0) return Math.min(available, HEAD_BYTES);
    const n = Math.min(available, SCAN_FILE_BYTES, this.budget);
    this.budget -= n;
    return Math.max(n, Math.min(available, HEAD_BYTES));
  }

  /** The cache key of a content of this deploy's scope read `read` bytes far at a path. */
  private key(f: InputFile, sha256: string, read: number): string {
    return `${this.scope}:${sha256}:${pathKey(f.path)}:${read}`;
  }

  /** Adds a content's scan at a file's path. */
  private apply(f: InputFile, scan: ContentScan): void {
    this.seen.add(f);
    for (const x of scan.findings) this.findings.push({ ...x, file: f.path });
    for (const u of scan.urls) this.urls.push({ ...u, file: f.path });
  }

  /** Adds the remembered scan of a content, when there is one. */
  private recall(f: InputFile, key: string): boolean {
    const scan = cacheOf(this.ctx).get(key);
    if (scan) this.apply(f, scan);
    return scan !== undefined;
  }

  /**
   * Scans the first `read` bytes of a file (made without the drop's own hosts, which are
   * applied at the end, so that the scan of a content serves any drop; remembered under `key`).
   */
  private scan(f: InputFile, bytes: Uint8Array, read: number, key?: string): void {
    if (this.seen.has(f)) return;
    const part = bytes.subarray(0, read);
    const scan: { findings: Finding[]; urls: LinkedUrl[] } = { findings: [], urls: [] };
    if (f.path === RULE_FILES.redirects) {
      const parsed = parseRedirects(part, this.tierLimits);
      if (parsed.ok) scan.urls = redirectUrls(parsed.rules, NO_HOSTS);
    } else if (scannedKind(f.path) !== null && read <= HEAD_BYTES && sizeOf(f) > read) {
      // Past the deploy's budget: typed by its first bytes only.
      const exe = executableFinding(f.path, part);
      if (exe) scan.findings = [exe];
    } else {
      const result = scanFile(f.path, part, { ownHosts: NO_HOSTS, brands: this.brands });
      scan.findings = result.findings;
      scan.urls = result.urls;
    }
    const unfiled: ContentScan = {
      findings: scan.findings.map(({ file: _file, ...x }) => x),
      urls: scan.urls.map(({ file: _file, ...u }) => u),
    };
    if (key !== undefined) cacheOf(this.ctx).set(key, unfiled);
    this.apply(f, unfiled);
  }

  /** Sees a deferred file's bytes while they are stored (pass to storeContents). */
  readonly onBytes: OnBytes = (file, sha256, bytes) => {
    if (this.seen.has(file)) return;
    const read = this.claim(file, bytes.byteLength);
    const key = this.key(file, sha256, read);
    if (!this.recall(file, key)) this.scan(file, bytes, read, key);
  };

  /**
   * Scans the files whose bytes the request holds; when it holds them all, looks up their URLs
   * too. Throws content_refused (before any byte is stored) when that already refuses.
   */
  async beforeStore(scope: string): Promise<void> {
    this.scope = scope;
    for (const f of this.files) if (isHeld(f)) this.scan(f, f.bytes, this.claim(f, f.bytes.byteLength));
    if (this.files.every(isHeld)) await this.lookUp();
    await this.refuseIfSevere();
  }

  /**
   * Reads back the first bytes of the files not seen yet (given by reference, streamed from a
   * zip), looks up the URLs, and throws content_refused when the deploy is refused.
   */
  async afterStore(
    rows: readonly { path: string; storageRef: string; sha256: string }[],
    onRead?: OnBytes,
  ): Promise<void> {
    const stored = new Map(rows.map((r) => [r.path, r]));
    // One read per content and kind of path, however many files share it.
    const reads = new Map<string, { files: InputFile[]; sha256: string; ref: string; read: number; length: number }>();
    for (const f of this.files) {
      const row = stored.get(f.path);
      if (this.seen.has(f) || !row || sizeOf(f) === 0) continue;
      const size = sizeOf(f);
      const read = this.claim(f, size);
      const key = this.key(f, row.sha256, read);
      if (this.recall(f, key)) continue;
      const pending = reads.get(key);
      if (pending) pending.files.push(f);
      // A small file is read whole: one request either way, and the deploy report then reads it no more.
      else
        reads.set(key, {
          files: [f],
          sha256: row.sha256,
          ref: row.storageRef,
          read,
          length: size <= WHOLE_READ_BYTES ? size : read,
        });
    }
    await mapLimit([...reads], READ_CONCURRENCY, async ([key, r]) => {
      let bytes: Uint8Array | undefined;
      try {
        bytes = await readHead(this.ctx, r.ref, r.length);
      } catch (err) {
        console.error("[scan] could not read a file back", r.files[0]!.path, err instanceof Error ? err.message : err);
      }
      if (!bytes) return;
      // A short read (an object shorter than its row says) is scanned, but not remembered.
      const whole = bytes.byteLength === r.length;
      for (const f of r.files) {
        this.scan(f, bytes, Math.min(r.read, bytes.byteLength), whole ? key : undefined);
        if (whole && r.length === sizeOf(f)) onRead?.(f, r.sha256, bytes);
      }
    });
    await this.lookUp();
    await this.refuseIfSevere();
  }

  /** The web-risk rule: the first SCAN_URLS_PER_DEPLOY distinct URLs, looked up once. */
  private async lookUp(): Promise<void> {
    if (this.looked) return;
    this.looked = true;
    const key = this.ctx.env.WEB_RISK_API_KEY;
    if (!key || this.urls.length === 0) return;
    const first = new Map<string, LinkedUrl>();
    for (const u of this.urls) {
      if (this.ownHosts.has(resolveUrl(u.url)?.host ?? "")) continue;
      if (first.size >= SCAN_URLS_PER_DEPLOY) break;
      if (!first.has(u.url)) first.set(u.url, u);
    }
    const { hits } = await lookUpUris({ key, base: this.ctx.env.WEB_RISK_API_URL ?? WEB_RISK_DEFAULT_URL }, [
      ...first.keys(),
    ]);
    for (const [url, types] of hits) {
      const at = first.get(url)!;
      this.findings.push({
        rule: "web-risk",
        file: at.file,
        line: at.line,
        excerpt: excerptOf(`${url} (${types.join(", ")})`),
      });
    }
  }

  /** Findings in file order, then line order; one per rule and line. */
  sorted(): Finding[] {
    const order = new Map(this.files.map((f, i) => [f.path, i]));
    const seen = new Set<string>();
    return this.findings
      .filter((f) => f.host === undefined || !this.ownHosts.has(f.host))
      .map(({ host: _host, ...f }) => f)
      .sort((a, b) => (order.get(a.file) ?? -1) - (order.get(b.file) ?? -1) || a.line - b.line)
      .filter((f) => {
        const key = `${f.rule}\u0000${f.file}\u0000${f.line}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
  }

  /** The report's part: `findings`, when there are any. */
  reported(): { findings?: Finding[] } {
    const findings = this.sorted();
    return findings.length > 0 ? { findings } : {};
  }

  /** Anonymous deploys with a severe finding are refused, unless SCAN=report. */
  private async refuseIfSevere(): Promise<void> {
    if (!this.anonymous || this.ctx.env.SCAN !== "on") return;
    const findings = this.sorted();
    const severe = findings.filter((f) => SEVERE_RULES.has(f.rule));
    if (severe.length === 0) return;
    const target = `address:${this.address === undefined ? "unknown" : addressHash(this.address, this.ctx.env)}`;
    await withDb(() =>
      recordAudit(this.ctx.db, {
        actor: "scan",
        action: "scan.refused",
        target,
        reason: [...new Set(severe.map((f) => f.rule))].join(", "),
        data: { findings: findings.map((f) => ({ rule: f.rule, file: f.file, line: f.line })) },
        at: new Date(this.ctx.now()),
      }),
    ).catch((err: unknown) => console.error("[scan] could not record a refusal in the audit log", err));
    for (const f of findings) metrics().scanFindings.inc({ rule: f.rule, action: "refused" });
    throw contentRefused(findings, severe);
  }

  /** Records the findings of a write that committed (the review queue, the audit log); never throws. */
  async flag(drop: { id: string; slug: string }, version: number): Promise<void> {
    const findings = this.sorted();
    for (const f of findings) metrics().scanFindings.inc({ rule: f.rule, action: "flagged" });
    try {
      await recordFlaggedFindings(this.ctx.db, drop, version, findings, new Date(this.ctx.now()));
    } catch (err) {
      console.error("[scan] could not record the findings of", drop.slug, err);
    }
  }
}

const RULE_TEXT: Record<Finding["rule"], string> = {
  "credential-form-offsite": "a password is sent to another site",
  "exfiltration-endpoint": "data is sent to a known collection endpoint",
  "instant-offsite-redirect": "index.html leaves for another site at once",
  "obfuscated-script": "a script runs decoded, hidden code",
  executable: "a file is an executable program",
  "brand-lure": "a password page names a brand",
  "web-risk": "a linked URL is on Google's list of unsafe sites",
};

function contentRefused(findings: Finding[], severe: Finding[]): ApiError {
  const first = severe[0]!;
  const where = first.line > 0 ? `${first.file} line ${first.line}` : first.file;
  return new ApiError(
    "content_refused",
    `The deploy scan refused this content: ${RULE_TEXT[first.rule]} (${first.rule}, ${where})${severe.length > 1 ? ` and ${severe.length - 1} more` : ""}.`,
    {
      hint: "details.findings names each rule, file, line and excerpt. Anonymous deploys with these findings are refused; if this is a mistake, deploy from an account (its findings are reviewed) or report it at /report.",
      details: { findings },
    },
  );
}

/** The first `length` bytes of a stored object (fewer when it is shorter). */
async function readHead(ctx: AppContext, ref: string, length: number): Promise<Uint8Array | undefined> {
  if (length <= 0) return new Uint8Array();
  const stream = await ctx.storage.get(ref, { start: 0, end: length - 1 });
  if (!stream) return undefined;
  const out = new Uint8Array(length);
  let at = 0;
  const reader = stream.getReader();
  let ended = false;
  try {
    while (at < length) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        break;
      }
      const part = value.subarray(0, length - at);
      out.set(part, at);
      at += part.byteLength;
    }
    // A range answered exactly ends here: read its end, so the connection goes back to the pool
    // rather than being cut (cutting them after many range reads left a Blob client without one).
    if (!ended) ended = (await reader.read()).done;
  } finally {
    // Not awaited (as in ./report): cancelling one branch of a tee'd body can wait on the other.
    if (!ended) void reader.cancel().catch(() => undefined);
  }
  return out.subarray(0, at);
}
