import type {
  ButtonHTMLAttributes,
  FormEventHandler,
  InputHTMLAttributes,
  ReactNode,
  SelectHTMLAttributes,
} from "react";

// The controls of the dashboard, one set with one look (app/globals.css, "Controls"): a button is
// primary, secondary or danger; an input is text, URL, password or code; a select; a notice is
// info, success or error. Every form builds its controls from these.

type Variant = "primary" | "secondary" | "danger";

export function buttonClass(variant: Variant = "primary", small = false): string {
  return ["button", variant === "primary" ? "" : variant, small ? "small" : ""].filter(Boolean).join(" ");
}

export function Button({
  variant = "primary",
  small = false,
  type = "button",
  className,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; small?: boolean }) {
  return (
    <button type={type} className={[buttonClass(variant, small), className].filter(Boolean).join(" ")} {...rest} />
  );
}

type InputKind = "text" | "url" | "password" | "code" | "search";

/** A labelled input: the label above, the field the width of its form, an optional hint below it. */
export function Field({
  id,
  label,
  kind = "text",
  hint,
  className,
  ...rest
}: Omit<InputHTMLAttributes<HTMLInputElement>, "type"> & {
  id: string;
  label: ReactNode;
  kind?: InputKind;
  hint?: ReactNode;
}) {
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className={["field", className].filter(Boolean).join(" ")}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type={kind === "code" ? "text" : kind}
        className={`input${kind === "code" ? " code" : ""}`}
        aria-describedby={hintId}
        spellCheck={kind === "code" || kind === "url" ? false : undefined}
        autoCapitalize={kind === "code" || kind === "url" ? "off" : undefined}
        {...rest}
      />
      {hint && (
        <p id={hintId} className="muted hint">
          {hint}
        </p>
      )}
    </div>
  );
}

/**
 * A form of one row: its fields, then the submit button (held while `pending`) at their end,
 * wrapping on a narrow screen; `after` (options, what the form said) below the row.
 */
export function InlineForm({
  onSubmit,
  submit,
  pending,
  after,
  children,
}: {
  onSubmit: FormEventHandler<HTMLFormElement>;
  submit: ReactNode;
  pending: boolean;
  after?: ReactNode;
  children: ReactNode;
}) {
  return (
    <form onSubmit={onSubmit}>
      <div className="inline-form">
        {children}
        <Button type="submit" disabled={pending}>
          {submit}
        </Button>
      </div>
      {after}
    </form>
  );
}

/** A labelled select of `options` (value and label each). */
export function Select({
  id,
  label,
  options,
  className,
  ...rest
}: SelectHTMLAttributes<HTMLSelectElement> & {
  id: string;
  label: ReactNode;
  options: readonly { value: string | number; label: string }[];
}) {
  return (
    <div className={["field", className].filter(Boolean).join(" ")}>
      <label htmlFor={id}>{label}</label>
      <select id={id} className="input" {...rest}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** A box of words that stands out: info (neutral), success or error. Errors are alerts. */
export function Notice({
  tone = "info",
  testId,
  children,
}: {
  tone?: "info" | "success" | "error";
  testId?: string;
  children: ReactNode;
}) {
  return (
    <div
      className={tone === "error" ? "error" : `notice${tone === "success" ? " success" : ""}`}
      role={tone === "error" ? "alert" : undefined}
      data-testid={testId}
    >
      {children}
    </div>
  );
}
