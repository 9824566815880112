import { API_KEY_PATTERN } from "../patterns";
import type { DeployReport } from "../schemas";

// The secrets a deploy's files may publish (the deploy report, lib/deploy/report.ts): shapes of
// known keys and tokens found by kind, first line and count, environment files by name; and a
// reference shown in the report never quotes a secret.

export type Warning = DeployReport["warnings"][number];

export type SecretKind = NonNullable<Warning["secret_kind"]>;

/** A kind of secret a text holds: the line of its first occurrence, and how many there are. */
export interface SecretFound {
  kind: SecretKind;
  line: number;
  count: number;
}

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

/**
 * Any literal of any pattern, as one expression: one pass over a text that holds none (most do)
 * instead of one `includes` per literal (14 passes cost a 900-file zip deploy 30 ms more).
 */
const ANY_LITERAL = new RegExp(
  SECRET_PATTERNS.flatMap((p) => p.literals.map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("|"),
);

/** The patterns whose literals occur in the text. */
const candidates = (text: string) =>
  ANY_LITERAL.test(text) ? SECRET_PATTERNS.filter((p) => p.literals.some((l) => text.includes(l))) : [];

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

export function secretsOf(text: string): SecretFound[] {
  const out: SecretFound[] = [];
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

export function secretWarnings(path: string, scan: { secrets: readonly SecretFound[] }): Warning[] {
  return scan.secrets.map(({ kind, line, count }) => ({
    path,
    kind: "secret",
    secret_kind: kind,
    message: `Line ${line} holds what looks like ${SECRET_WHAT.get(kind)}${count > 1 ? ` (${count} such strings in this file)` : ""}. Anyone can read it at the drop's URL: revoke it, remove it and deploy again.`,
  }));
}

/** `.env`, `.env.local`, `config/.env.production`; not the usual templates (.env.example, .sample, .template). */
export function isEnvFile(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  return (name === ".env" || name.startsWith(".env.")) && !/\.(example|sample|template|dist)$/.test(name);
}

/** The display of a reference: without query and fragment, and never a secret. */
export function shownRef(ref: string): string {
  const plain = ref.replace(/[?#][\s\S]*$/, "").slice(0, 300);
  return LOOSE_SECRET_PATTERNS.some((re) => re.test(plain)) ? "(a reference shaped like a secret)" : plain;
}
