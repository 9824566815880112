// Small formats the dashboard's panels share (the site-wide ones are in app/_components/format.ts).

/** A timestamp as its UTC date (2026-05-01), or "never". */
export const day = (iso: string | null) => (iso ? new Date(iso).toISOString().slice(0, 10) : "never");

/** A drop URL without its scheme and trailing slash, as a person reads it (abc.example.com). */
export const host = (url: string) => url.replace(/^https?:\/\//, "").replace(/\/$/, "");
