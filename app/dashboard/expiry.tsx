import { dateTime, dropState, relative } from "../_components/format";

/** An expiry in words, the exact date on hover. */
export function Expiry({ iso, now }: { iso: string | null; now: number }) {
  if (iso === null) return <span>never</span>;
  return (
    <time dateTime={iso} title={dateTime(iso)}>
      {dropState(iso, now) === "expired"
        ? relative(iso, now) === "now"
          ? "expired just now"
          : `expired ${relative(iso, now)}`
        : relative(iso, now)}
    </time>
  );
}
