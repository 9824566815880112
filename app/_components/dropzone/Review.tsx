import { describeSkip, selectFiles, type Selection, type Skipped } from "@/lib/files/ignore";
import { bytes } from "../format";
import { plural, type Phase, type PickedFile } from "./phase";

// Before a deploy that leaves files out: what will be published, what stays behind and why, and
// the choice to publish dotfiles too.

export function Review({
  phase,
  onToggle,
  onCancel,
  onSend,
}: {
  phase: Extract<Phase, { kind: "review" }>;
  onToggle: (includeDotfiles: boolean) => void;
  onCancel: () => void;
  onSend: (files: PickedFile[], skipped: Skipped<PickedFile>[]) => void;
}) {
  const sel: Selection<PickedFile> = selectFiles(phase.picked, phase.ignoreFiles, {
    includeDotfiles: phase.includeDotfiles,
  });
  const size = sel.kept.reduce((n, f) => n + f.file.size, 0);
  const hasDotfiles = phase.picked.some((p) => p.path.split("/").some((s) => s.startsWith(".")));
  return (
    <div className="card review" data-testid="deploy-review">
      <p>
        <strong>
          {plural(sel.kept.length, "file")} ({bytes(size)}) will be published.
        </strong>{" "}
        {plural(sel.skipped.length, "file")} left out, as the command-line client would:
      </p>
      <ul className="file-list" data-testid="skipped-files">
        {sel.skipped.slice(0, 50).map((s) => (
          <li key={s.file.path}>
            <code>{s.file.path}</code> <span className="muted">{describeSkip(s)}</span>
          </li>
        ))}
        {sel.skipped.length > 50 && <li className="muted">and {plural(sel.skipped.length - 50, "more file")}</li>}
      </ul>
      {hasDotfiles && (
        <p>
          <label className="check">
            <input type="checkbox" checked={phase.includeDotfiles} onChange={(e) => onToggle(e.target.checked)} />{" "}
            Publish dotfiles too (such as .env: check they hold no secrets)
          </label>
        </p>
      )}
      <div className="row" style={{ justifyContent: "flex-start" }}>
        <button
          type="button"
          className="button"
          disabled={sel.kept.length === 0}
          onClick={() => onSend(sel.kept, sel.skipped)}
        >
          Publish {plural(sel.kept.length, "file")}
        </button>
        <button type="button" className="button secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
