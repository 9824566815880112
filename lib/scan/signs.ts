// Whether a script is worth parsing: the deploy scan's pre-filter. Most scripts hold nothing any
// rule reads, and a parse costs far more than a few substring tests; each test is a pass over
// the text, so there are few, and the rarer ones only where they can matter.

/** A string literal of base64 longer than this (code units) is `obfuscated-script` (./script). */
export const BASE64_LITERAL_CHARS = 100 * 1024;

const has = (text: string, words: readonly string[]) => words.some((w) => text.includes(w));

/** Text that may spell anything once folded or decoded: strings joined with `+`, escapes, percent-escapes. */
const CONSTRUCTED = /["'`]\s*\+|\+\s*["'`]|\\[ux]|%[0-9a-f]{2}/i;

/**
 * Whether a script holds what any rule needs (plain substring tests, far cheaper than a parse):
 * most scripts hold none, and are then not parsed at all. Each test is a pass over the text, so
 * the words of the page's forms are looked for only where a password is in play (eval needs a
 * decoder's output to be a finding: the decoders are the sign).
 */
export function worthParsing(
  text: string,
  input: { pagePassword?: boolean; pageForms?: boolean; redirectAtOnce?: boolean },
): boolean {
  if (text.length > BASE64_LITERAL_CHARS) return true;
  if (has(text, ["atob", "unescape", "fromCharCode"]) || CONSTRUCTED.test(text)) return true;
  const lower = text.toLowerCase();
  if (has(lower, ["telegram", "discord", "slack"])) return true;
  if (input.redirectAtOnce && text.includes("location")) return true;
  if (input.pageForms === true && lower.includes("action")) return true;
  if (input.pagePassword !== true && !has(lower, ["pass", "pwd", "pw"])) return false;
  return (
    has(text, ["fetch", "sendBeacon", "open", "$", "jQuery", "axios", "src", "location"]) ||
    has(lower, ["action", "type", "html", "write"])
  );
}
