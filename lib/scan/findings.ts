import type { scanRules } from "../schemas";

// What the deploy scan reports: a finding names one of the seven rules, the file and the line
// of the offending element or call (0 for a binary file) and a short excerpt of it. The rules
// themselves are in ./rules (files), ./html, ./script and ./web-risk; docs/scanning.md says
// what each catches and misses.

export type ScanRule = (typeof scanRules)[number];

/** Rules whose findings refuse an anonymous deploy (content_refused); the others only flag it for review. */
export const SEVERE_RULES: ReadonlySet<ScanRule> = new Set<ScanRule>([
  "credential-form-offsite",
  "exfiltration-endpoint",
  "executable",
  "web-risk",
]);

export interface Finding {
  rule: ScanRule;
  /** The drop path of the file (`_redirects` for a redirect target). */
  file: string;
  /** 1-based line of the element or call; 0 for a binary file. */
  line: number;
  /** At most EXCERPT_CHARS code points of the offending source, whitespace collapsed. */
  excerpt: string;
  /**
   * The other host that makes it a finding (a form's action, a redirect's target): a finding is
   * void for a host that turns out to be the drop's own (lib/deploy/scan.ts checks them after a
   * scan made without them, so one content's scan serves every drop). Never reported.
   */
  host?: string;
}

/** The longest excerpt, in Unicode code points. */
export const EXCERPT_CHARS = 120;

/** A source snippet as an excerpt: whitespace collapsed, cut to EXCERPT_CHARS code points (with …). */
export function excerptOf(text: string): string {
  // Only the start matters: a minified line can be megabytes long.
  const collapsed = text
    .slice(0, EXCERPT_CHARS * 8)
    .replace(/\s+/g, " ")
    .trim();
  const points = Array.from(collapsed);
  return points.length <= EXCERPT_CHARS ? collapsed : `${points.slice(0, EXCERPT_CHARS - 1).join("")}…`;
}

/** Line numbers of offsets in one text (1-based), by binary search over its line starts. */
export class Lines {
  private readonly starts: number[] = [0];

  constructor(
    text: string,
    private readonly first = 1,
  ) {
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) this.starts.push(i + 1);
  }

  at(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + this.first;
  }
}
