/**
 * Parses a Range header for a resource of `size` bytes. A single byte range is honoured;
 * anything else (absent, multiple ranges, other units, syntax errors) is "ignore" and the whole
 * resource is sent, as RFC 9110 allows. "unsatisfiable" answers 416.
 */
export function parseRange(
  header: string | null,
  size: number,
): { start: number; end: number } | "ignore" | "unsatisfiable" {
  if (!header) return "ignore";
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return "ignore";
  const [, a = "", b = ""] = m;
  if (a === "" && b === "") return "ignore";
  if (a === "") {
    const suffix = Number(b);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(a);
  const end = b === "" ? size - 1 : Math.min(Number(b), size - 1);
  if (b !== "" && Number(b) < start) return "ignore";
  if (start >= size) return "unsatisfiable";
  return { start, end };
}
