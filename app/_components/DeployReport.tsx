import type { DeployReport } from "@/lib/schemas";

// The deploy report under a deploy's result on the page: warnings (secrets, no index.html,
// large files, case clashes) and references to files the drop does not hold. Nothing when the
// report is empty. The server never puts a secret in it, so it is shown as it comes.

/** The report of a deploy answer, when it has the report's shape. */
export function reportOf(value: unknown): DeployReport | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const r = value as Partial<DeployReport>;
  return Array.isArray(r.warnings) && Array.isArray(r.missing_references) ? (r as DeployReport) : undefined;
}

const LABELS: Record<DeployReport["warnings"][number]["kind"], string> = {
  secret: "Secret",
  no_index: "No index.html",
  large_file: "Large file",
  case_clash: "Case clash",
  not_scanned: "Not checked",
};

export function DeployReportList({ report }: { report?: DeployReport }) {
  if (!report) return null;
  const warnings = report.warnings.length + (report.left_off?.warnings ?? 0);
  const missing = report.missing_references.length + (report.left_off?.missing_references ?? 0);
  if (warnings + missing === 0) return null;
  const more = (report.left_off?.warnings ?? 0) + (report.left_off?.missing_references ?? 0);
  return (
    <details className="deploy-report" open data-testid="deploy-report">
      <summary>
        Check before sharing: {warnings} warning{warnings === 1 ? "" : "s"}, {missing} missing reference
        {missing === 1 ? "" : "s"}
      </summary>
      <ul className="file-list">
        {report.warnings.map((w, i) => (
          <li key={`w${i}`} data-kind={w.kind}>
            <strong>{LABELS[w.kind]}</strong>
            {w.path && (
              <>
                {" "}
                <code>{w.path}</code>
              </>
            )}
            : {w.message}
          </li>
        ))}
        {report.missing_references.map((m, i) => (
          <li key={`m${i}`} data-kind="missing">
            <strong>Missing</strong> <code>{m.ref}</code> <span className="muted">(referred to by {m.path})</span>
          </li>
        ))}
      </ul>
      {more > 0 && <p className="muted">… and {more} more not listed.</p>}
    </details>
  );
}
