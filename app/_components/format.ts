// Words for times and sizes shown to people. Pure, so server and browser render the same text
// when given the same `now`.

const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86_400_000],
  // Days up to two months read better than weeks ("in 30 days", the anonymous lifetime).
  ["month", 60 * 86_400_000],
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
  ["second", 1000],
];

/** "in 6 days", "3 hours ago". */
export function relative(iso: string, now: number): string {
  const diff = new Date(iso).getTime() - now;
  for (const [unit, ms] of units) {
    if (Math.abs(diff) >= ms || unit === "second")
      return rtf.format(Math.round(diff / (unit === "month" ? 30 * 86_400_000 : ms)), unit);
  }
  return rtf.format(0, "second");
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad = (n: number) => String(n).padStart(2, "0");

/** "22 Nov 2026, 14:05 UTC": unambiguous wherever the reader is, and the same on server and browser. */
export function dateTime(iso: string): string {
  const d = new Date(iso);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

/** "1.2 MB", "512 B". */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

export type DropState = "live" | "expired";

export function dropState(expiresAt: string | null, now: number): DropState {
  return expiresAt !== null && new Date(expiresAt).getTime() <= now ? "expired" : "live";
}
