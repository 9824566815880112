import { ApiError } from "./errors";

// One validator for identifiers, free text and file paths, used at every entry point (REST
// routes, MCP tools, server actions) before a value reaches the database or storage. The byte
// limits are stated in docs/decisions.md ("Input limits"): a value past them, or one with a NUL or
// another control character, is refused as 400 (or 404 for an identifier in a URL) and never
// reaches PostgreSQL, which cannot store NUL, or the file system, whose names end at 255 bytes.

export const INPUT_LIMITS = {
  /** One path segment (a folder or file name), in UTF-8 bytes. */
  segmentBytes: 200,
  /** A whole file path, in UTF-8 bytes. */
  pathBytes: 1024,
  /** A key note. */
  noteBytes: 200,
  /** An identity provider's subject or email claim. */
  claimBytes: 255,
} as const;

/** Slugs are 20 lowercase base32 characters (lib/ids.ts). */
export const SLUG_PATTERN = /^[a-z2-7]{20}$/;
// C0 controls, DEL and C1 controls.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// A UTF-16 surrogate without its partner: no UTF-8 form.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const encoder = new TextEncoder();
export const utf8Bytes = (s: string): number => encoder.encode(s).byteLength;

/** Text the database can store as given: well-formed Unicode with no control characters. */
export function isPlainText(s: string): boolean {
  return !CONTROL.test(s) && !LONE_SURROGATE.test(s);
}

export function isSlug(v: unknown): v is string {
  return typeof v === "string" && SLUG_PATTERN.test(v);
}

/** A slug from a URL or body; anything that cannot be a slug is the same 404 as an absent drop. */
export function slugOr404(v: unknown, notFound: () => ApiError): string {
  if (!isSlug(v)) throw notFound();
  return v;
}

/** Free text such as a key note: at most `maxBytes`, no control characters, else 400. */
export function plainText(v: unknown, field: string, maxBytes: number): string {
  if (typeof v !== "string") throw new ApiError("invalid_request", `${field} must be a string.`);
  if (!isPlainText(v))
    throw new ApiError("invalid_request", `${field} contains a control character or invalid Unicode.`);
  if (utf8Bytes(v) > maxBytes) throw new ApiError("invalid_request", `${field} is longer than ${maxBytes} bytes.`);
  return v;
}

/**
 * The one rule for integers in a query string: decimal digits only, at most 15 of them (every
 * such number is exact in a double). `Number()` would also take "1e2", "0x10", "0b1", " 7" and
 * "" (as 0); those are refused by every caller (400) instead.
 */
export function queryInteger(raw: string): number | undefined {
  return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

/**
 * A list's `limit` and `offset` through queryInteger: each one present that is not a number
 * already (an MCP tool's arguments) must be decimal digits, else 400 invalid_request naming it.
 * The other fields are passed on as they are; the list's schema then checks the bounds.
 */
export function pageIntegers(raw: unknown, docs?: string): unknown {
  if (raw === null || typeof raw !== "object") return raw;
  const out: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  for (const k of ["limit", "offset"] as const) {
    const v = out[k];
    if (v === undefined || typeof v === "number") continue;
    const n = typeof v === "string" ? queryInteger(v) : undefined;
    if (n === undefined)
      throw new ApiError("invalid_request", `${k} must be written in decimal digits.`, {
        details: { field: k },
        ...(docs ? { docs } : {}),
      });
    out[k] = n;
  }
  return out;
}

/** A claim of an identity provider we store (sub, email): bounded plain text, or not accepted. */
export function isStorableClaim(v: string): boolean {
  return isPlainText(v) && utf8Bytes(v) <= INPUT_LIMITS.claimBytes;
}

export { LONE_SURROGATE };
