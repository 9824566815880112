import QRCode from "qrcode";
import { useEffect, useState } from "react";
import { CopyButton } from "../CodeBlock";
import { DeployReportList } from "../DeployReport";
import { bytes, dateTime, relative } from "../format";
import { plural, type Phase } from "./phase";

// The result of a deploy: the URL with copy, open and a QR code, its expiry, the files published
// and left out, the deploy report, and an anonymous drop's claim token to keep.

export function Deployed({
  phase,
  link,
}: {
  phase: Extract<Phase, { kind: "done" }>;
  link: React.RefObject<HTMLAnchorElement | null>;
}) {
  const [qr, setQr] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    QRCode.toDataURL(phase.url, { margin: 1, width: 176, errorCorrectionLevel: "M" })
      .then((data) => live && setQr(data))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [phase.url]);
  const total = phase.files.reduce((n, f) => n + (f.size ?? 0), 0);
  const known = phase.files.every((f) => f.size !== undefined);
  const downloadToken = () => {
    const text = JSON.stringify(
      {
        url: phase.url,
        slug: phase.slug,
        claim_token: phase.claimToken,
        expires_at: phase.expiresAt,
        how_to_claim:
          "Log in to the dashboard and paste this file's text under 'Claim an anonymous drop', or POST {slug, claim_token} to /claim with your API key.",
      },
      null,
      2,
    );
    const href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    const a = document.createElement("a");
    a.href = href;
    a.download = `dropsite-claim-${phase.slug}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(href), 1000);
  };
  return (
    <div className="result card" data-testid="deploy-result">
      <div className="result-main">
        <div>
          <p className="result-url">
            <a href={phase.url} data-testid="deployed-url" target="_blank" rel="noopener" ref={link}>
              {phase.url}
            </a>
          </p>
          <p className="row" style={{ justifyContent: "flex-start" }}>
            <CopyButton text={phase.url} label="Copy the URL" className="button small" testId="copy-url" />
            <a className="button small secondary" href={phase.url} target="_blank" rel="noopener">
              Open
            </a>
          </p>
          <p data-testid="deployed-expiry">
            {phase.expiresAt === null ? (
              "Never expires."
            ) : (
              <>
                Online until <time dateTime={phase.expiresAt}>{dateTime(phase.expiresAt)}</time> (
                {relative(phase.expiresAt, phase.at)}).
              </>
            )}
          </p>
        </div>
        <figure className="qr">
          {qr ? (
            // A data: URL drawn in this browser: nothing for next/image to optimise.
            // eslint-disable-next-line @next/next/no-img-element
            <img src={qr} width={176} height={176} alt={`QR code for ${phase.url}`} data-testid="qr-code" />
          ) : (
            <span className="qr-placeholder" />
          )}
          <figcaption className="muted">Open it on a phone</figcaption>
        </figure>
      </div>
      {phase.unchanged !== undefined && (
        <p className="muted" data-testid="deployed-unchanged">
          {phase.unchanged.toLocaleString("en-US")} of {plural(phase.files.length, "file")} unchanged (not uploaded
          again).
        </p>
      )}
      <details open={phase.files.length <= 12} data-testid="deployed-files">
        <summary>
          {plural(phase.files.length, "file")}
          {known && total > 0 ? `, ${bytes(total)}` : ""}
        </summary>
        <ul className="file-list">
          {phase.files.map((f) => (
            <li key={f.path}>
              <a href={new URL(f.path, phase.url).href} target="_blank" rel="noopener">
                {f.path}
              </a>{" "}
              {f.size !== undefined && <span className="muted">{bytes(f.size)}</span>}
            </li>
          ))}
        </ul>
      </details>
      {phase.leftOut.length > 0 && (
        <details open={phase.leftOut.length <= 12} data-testid="deployed-left-out">
          <summary>{plural(phase.leftOut.length, "file")} left out</summary>
          <ul className="file-list">
            {phase.leftOut.slice(0, 50).map((f) => (
              <li key={f.path}>
                <code>{f.path}</code> <span className="muted">{f.why}</span>
              </li>
            ))}
            {phase.leftOut.length > 50 && (
              <li className="muted">and {plural(phase.leftOut.length - 50, "more file")}</li>
            )}
          </ul>
        </details>
      )}
      <DeployReportList report={phase.report} />
      {phase.claimToken && (
        <div className="claim-box" data-testid="claim-token-box">
          <p>
            <strong>Keep this claim token.</strong> This drop belongs to nobody yet. Whoever holds the token can move it
            into their account (log in, then <em>Claim an anonymous drop</em> on the dashboard) and keep it online
            longer. It is shown only now; this browser remembers it, but save it to claim from anywhere else.
          </p>
          <p className="secret" data-testid="claim-token">
            {phase.claimToken}
          </p>
          <p className="row" style={{ justifyContent: "flex-start" }}>
            <CopyButton text={phase.claimToken} label="Copy the claim token" className="button small" />
            <button
              type="button"
              className="button small secondary"
              onClick={downloadToken}
              data-testid="download-token"
            >
              Download as a file
            </button>
          </p>
        </div>
      )}
    </div>
  );
}
