import type { DeployReport } from "../schemas";

// The deploy report as lines of text, for the CLI and the MCP tools' text (the browser page
// lists the same entries). No dependencies: the CLI bundles it.

type Warning = DeployReport["warnings"][number];

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** "warning (secret: aws_access_key) config.js: …" */
export function warningLine(w: Warning): string {
  return `${w.kind}${w.secret_kind ? ` (${w.secret_kind})` : ""}${w.path ? ` ${w.path}` : ""}: ${w.message}`;
}

/** "index.html → img/missing.png" */
export function missingLine(m: DeployReport["missing_references"][number]): string {
  return `${m.path} → ${m.ref}`;
}

/** How many entries the report holds, counting those the server left off. */
function totals(report: DeployReport): { warnings: number; missing: number } {
  return {
    warnings: report.warnings.length + (report.left_off?.warnings ?? 0),
    missing: report.missing_references.length + (report.left_off?.missing_references ?? 0),
  };
}

/**
 * The report in a few lines: a headline, then warnings and missing references, at most `max`
 * entries in all, and how many more there are (`whereAll` says where to see the lists).
 * Nothing when the report is empty or absent.
 */
export function reportLines(report: DeployReport | undefined, max: number, whereAll: string): string[] {
  if (!report) return [];
  const t = totals(report);
  const rules = rulesLine(report);
  const head = [...(rules ? [rules] : []), ...findingLines(report)];
  if (t.warnings + t.missing === 0) return head;
  const entries = [
    ...report.warnings.map((w) => `  warning ${warningLine(w)}`),
    ...report.missing_references.map((m) => `  missing ${missingLine(m)}`),
  ];
  const shown = entries.slice(0, max);
  const more = t.warnings + t.missing - shown.length;
  return [
    ...head,
    `Report: ${plural(t.warnings, "warning")}, ${plural(t.missing, "missing reference")}.`,
    ...shown,
    ...(more > 0 ? [`  … and ${more} more (${whereAll}).`] : []),
  ];
}

/** "Site rules: 3 redirect rules, 1 header rule." when the drop has any (from _redirects and _headers). */
export function rulesLine(report: Pick<DeployReport, "redirect_rules" | "header_rules">): string | undefined {
  const r = report.redirect_rules ?? 0;
  const h = report.header_rules ?? 0;
  return r + h > 0 ? `Site rules: ${plural(r, "redirect rule")}, ${plural(h, "header rule")}.` : undefined;
}

/** The deploy scan's findings: a headline, then one line each (they are few: one per rule and line). */
function findingLines(report: Pick<DeployReport, "findings">): string[] {
  const findings = report.findings ?? [];
  if (findings.length === 0) return [];
  return [
    `Scan: ${plural(findings.length, "finding")}; the drop is in the operators' review queue.`,
    ...findings.map((f) => `  ${f.rule} ${f.file}${f.line > 0 ? `:${f.line}` : ""}: ${f.excerpt}`),
  ];
}
