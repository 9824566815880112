import { CopyButton } from "../_components/CodeBlock";

/** A secret shown once (a new API key, a new webhook's signing secret), with its copy button. */
export function SecretNotice({
  secret,
  noun,
  copy,
  testId,
}: {
  secret: string;
  noun: string;
  copy: string;
  testId: string;
}) {
  return (
    <div className="notice" data-testid={testId}>
      <p>
        <strong>Copy this {noun} now. It is shown once and cannot be recovered.</strong>
      </p>
      <p className="secret" data-testid={`${testId}-secret`}>
        {secret}
      </p>
      <CopyButton text={secret} label={copy} className="button small">
        {copy}
      </CopyButton>
    </div>
  );
}
