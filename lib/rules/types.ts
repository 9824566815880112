// Site rules as stored with a drop's files: the parsed lines of its root `_redirects` and
// `_headers` (Netlify syntax), already checked by ./parse. A key is present only when the drop
// has that file. Plain JSON, so it reads the same in the database, the dashboard and get_drop.

export const REDIRECT_STATUSES = [200, 301, 302, 303, 307, 308, 404] as const;
export type RedirectStatus = (typeof REDIRECT_STATUSES)[number];

export interface RedirectRule {
  /** 1-based line of `_redirects`. */
  line: number;
  from: string;
  to: string;
  status: RedirectStatus;
  /** `!`: applies even when a file answers the path. */
  force: boolean;
}

export interface HeaderRule {
  /** 1-based line of the path in `_headers`. */
  line: number;
  path: string;
  /** Name and value, as written, in order (a name may repeat). */
  headers: [string, string][];
}

export interface SiteRules {
  redirects?: RedirectRule[];
  headers?: HeaderRule[];
}

/** The root files that hold site rules: stored with the drop, never served. */
export const RULE_FILES = { redirects: "_redirects", headers: "_headers" } as const;

/** Numbers of rules, as the deploy report and get_drop give them. */
export function ruleCounts(rules: SiteRules | null | undefined): { redirect_rules: number; header_rules: number } {
  return { redirect_rules: rules?.redirects?.length ?? 0, header_rules: rules?.headers?.length ?? 0 };
}
