import { createHmac } from "node:crypto";
import type { AppContext } from "../context";
import type { Caller } from "../auth/caller";
import { recordAudit } from "../db/audit";
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
import { lookUpUris, WEB_RISK_DEFAULT_URL } from "../scan/web-risk";
import { derivedKey } from "../secret";
import { mapLimit } from "../storage/types";
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
/** A `_redirects` longer than this is not read back for its targets (the rule limits keep it far smaller). */
const REDIRECTS_READ_BYTES = 4 * 1024 * 1024;

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
    const hosts = new Set([`${target.slug}.${serve}`]);
    if (target.vanity) hosts.add(`${target.vanity}.${serve}`);
    if (target.existing) for (const h of await withDb(() => activeDomainsOf(ctx.db, target.slug))) hosts.add(h);
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

  private scan(f: InputFile, bytes: Uint8Array, read: number): void {
    if (this.seen.has(f)) return;
    this.seen.add(f);
    const part = bytes.subarray(0, read);
    if (f.path === RULE_FILES.redirects) {
      const parsed = parseRedirects(part, this.tierLimits);
      if (parsed.ok) this.urls.push(...redirectUrls(parsed.rules, this.ownHosts));
      return;
    }
    if (scannedKind(f.path) !== null && read <= HEAD_BYTES && sizeOf(f) > read) {
      // Past the deploy's budget: typed by its first bytes only.
      const exe = executableFinding(f.path, part);
      if (exe) this.findings.push(exe);
      return;
    }
    const result = scanFile(f.path, part, { ownHosts: this.ownHosts, brands: this.brands });
    this.findings.push(...result.findings);
    this.urls.push(...result.urls);
  }

  /** Sees a deferred file's bytes while they are stored (pass to storeContents). */
  readonly onBytes: OnBytes = (file, _sha256, bytes) => {
    if (!this.seen.has(file)) this.scan(file, bytes, this.claim(file, bytes.byteLength));
  };

  /**
   * Scans the files whose bytes the request holds; when it holds them all, looks up their URLs
   * too. Throws content_refused (before any byte is stored) when that already refuses.
   */
  async beforeStore(): Promise<void> {
    for (const f of this.files) if (isHeld(f)) this.scan(f, f.bytes, this.claim(f, f.bytes.byteLength));
    if (this.files.every(isHeld)) await this.lookUp();
    await this.refuseIfSevere();
  }

  /**
   * Reads back the first bytes of the files not seen yet (given by reference, streamed from a
   * zip), looks up the URLs, and throws content_refused when the deploy is refused.
   */
  async afterStore(rows: readonly { path: string; storageRef: string }[]): Promise<void> {
    const refs = new Map(rows.map((r) => [r.path, r.storageRef]));
    const rest = this.files
      .filter((f) => !this.seen.has(f) && sizeOf(f) > 0)
      .map((f) => ({ f, length: this.claim(f, sizeOf(f)) }));
    await mapLimit(rest, READ_CONCURRENCY, async ({ f, length }) => {
      const ref = refs.get(f.path);
      let bytes: Uint8Array | undefined;
      try {
        bytes = ref === undefined ? undefined : await readHead(this.ctx, ref, length);
      } catch (err) {
        console.error("[scan] could not read a file back", f.path, err instanceof Error ? err.message : err);
      }
      if (bytes) this.scan(f, bytes, bytes.byteLength);
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
    return [...this.findings]
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
    const target = `address:${this.address === undefined ? "unknown" : addressHash(this.address)}`;
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
    throw contentRefused(findings, severe);
  }

  /** Records the findings of a write that committed (the review queue, the audit log); never throws. */
  async flag(drop: { id: string; slug: string }, version: number): Promise<void> {
    const findings = this.sorted();
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

/** An address as the audit log keeps it: HMAC under a key derived from the server secret. */
function addressHash(address: string): string {
  return createHmac("sha256", derivedKey("address")).update(address).digest("base64url").slice(0, 32);
}

/** The first `length` bytes of a stored object (fewer when it is shorter). */
async function readHead(ctx: AppContext, ref: string, length: number): Promise<Uint8Array | undefined> {
  if (length <= 0) return new Uint8Array();
  const stream = await ctx.storage.get(ref, { start: 0, end: length - 1 });
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
    // Not awaited (as in ./report): cancelling one branch of a tee'd body can wait on the other.
    void reader.cancel().catch(() => undefined);
  }
  return out.subarray(0, at);
}
